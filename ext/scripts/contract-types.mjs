// TypeScript types generated from the shipped JSON Schemas (the run's and the digest's) into ext/src/generated/,
// so the panel's types cannot drift from the Python classes those schemas come from; ext/src/types.ts re-exports
// them under the names the panel uses.  `node ext/scripts/contract-types.mjs` writes them (make contract);
// with --check it only says which file is stale and exits 1 (make lint).
//
// json-schema-to-typescript (a devDependency, pinned) does the work: it reads 2020-12 `$defs`, `anyOf` with
// null, `enum` and `additionalProperties`, and names each interface after its definition.  The output goes
// through the repository's own prettier and settings, so `prettier --check` and a regenerate agree.
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compile } from 'json-schema-to-typescript';
import * as prettier from 'prettier';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const SCHEMAS = join(ROOT, 'kernel_side', 'compile_profile', 'schema');
const OUT = join(ROOT, 'ext', 'src', 'generated');

// schema file -> [generated file, the name of its root type]
const TARGETS = {
  'profile_run.schema.json': ['profile_run.ts', 'ProfileRun'],
  'digest.schema.json': ['digest.ts', 'DigestJson'],
  'suite.schema.json': ['suite.ts', 'SuiteJson']
};

// A class that extends another (``RunDigest(RunSummary)``) lists its inherited fields too in the schema, so that
// each definition validates alone; its interface extends the base's and declares only its own, so the base's
// fields are declared once in TypeScript too.
function ownFieldsOnly(defs) {
  for (const def of Object.values(defs)) {
    const base = def.extends?.$ref && defs[def.extends.$ref.replace('#/$defs/', '')];
    if (!base) {
      continue;
    }
    const inherited = new Set(Object.keys(base.properties ?? {}));
    def.properties = Object.fromEntries(
      Object.entries(def.properties).filter(([key]) => !inherited.has(key))
    );
    def.required = (def.required ?? []).filter(key => !inherited.has(key));
  }
}

async function generate(schemaFile, rootName) {
  let schema = JSON.parse(readFileSync(join(SCHEMAS, schemaFile), 'utf8'));
  ownFieldsOnly(schema.$defs ?? {});
  const ref = schema.$ref?.replace('#/$defs/', '');
  if (ref === rootName) {
    // A root that is one definition (the run's) is compiled from that definition, so it is one interface, not
    // the root's and a copy named ProfileRun1.
    const { [ref]: root, ...others } = schema.$defs;
    schema = { ...root, $schema: schema.$schema, $id: schema.$id, $defs: others };
  }
  // the root type is named after the schema's title; each definition keeps its own name
  schema.title = rootName;
  const source = await compile(schema, rootName, {
    bannerComment:
      `/* Generated from kernel_side/compile_profile/schema/${schemaFile} by ext/scripts/contract-types.mjs` +
      ' (make contract): do not edit. */',
    // A key the schema does not name is not typed: the run's schema allows unknown keys so that a newer
    // file still loads, which must not give every interface an index signature of unknown values.
    additionalProperties: false,
    unreachableDefinitions: true,
    format: false
  });
  const config = await prettier.resolveConfig(join(OUT, 'x.ts'));
  return prettier.format(source, { ...config, parser: 'typescript' });
}

const check = process.argv.includes('--check');
const stale = [];
for (const [schemaFile, [outFile, rootName]] of Object.entries(TARGETS)) {
  const path = join(OUT, outFile);
  const text = await generate(schemaFile, rootName);
  let current = null;
  try {
    current = readFileSync(path, 'utf8');
  } catch {
    current = null;
  }
  if (current === text) {
    continue;
  }
  if (check) {
    stale.push(relative(ROOT, path));
  } else {
    writeFileSync(path, text);
    process.stdout.write(`wrote ${relative(ROOT, path)}\n`);
  }
}
if (stale.length) {
  process.stderr.write(`stale: ${stale.join(', ')}; regenerate with \`make contract\`\n`);
  process.exit(1);
}
