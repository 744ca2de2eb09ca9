/**
 * Finding the notebook cell a run came from, so a graph break's cell line can be shown there.
 *
 * A run keeps the cell's source as the kernel saw it: the `%%compile_profile ...` line followed by
 * the body.  The notebook cell usually holds exactly that; a cell edited since may still contain
 * the body.  Lines are 1-based cell lines counted from the magic line, as GraphBreak.line is.
 */

const MAGIC = /^\s*%%compile_profile\b/;

export function bodyOf(cellSource: string): string {
  const lines = cellSource.split('\n');
  return MAGIC.test(lines[0] ?? '') ? lines.slice(1).join('\n') : cellSource;
}

export interface ICellTarget {
  /** Index of the matching cell among `cellSources`. */
  index: number;
  /** 0-based line in that cell's editor. */
  editorLine: number;
}

/**
 * The best cell for `runSource` and where cell line `line` lands in it: an exact match of the whole
 * source first, then one whose body is identical, then the first containing the body.  When several
 * cells match equally, the last one wins (the most recently added copy is the likelier one run).
 */
export function findCell(cellSources: string[], runSource: string, line: number | null): ICellTarget | null {
  const body = bodyOf(runSource);
  const hasMagic = body !== runSource;
  const trim = (s: string) => s.replace(/\s+$/, '');
  const lastIndex = (pred: (s: string) => boolean) => {
    for (let i = cellSources.length - 1; i >= 0; i--) {
      if (pred(cellSources[i])) {
        return i;
      }
    }
    return -1;
  };
  const magicLines = hasMagic ? 1 : 0;
  const bodyLine = line === null ? 0 : Math.max(0, line - 1 - magicLines);

  let index = lastIndex(s => trim(s) === trim(runSource));
  if (index >= 0) {
    return { index, editorLine: line === null ? 0 : Math.max(0, line - 1) };
  }
  index = lastIndex(s => trim(bodyOf(s)) === trim(body));
  if (index >= 0) {
    const offset = bodyOf(cellSources[index]) !== cellSources[index] ? 1 : 0;
    return { index, editorLine: bodyLine + offset };
  }
  if (trim(body)) {
    index = lastIndex(s => s.includes(trim(body)));
    if (index >= 0) {
      const cell = cellSources[index];
      const before = cell.slice(0, cell.indexOf(trim(body)));
      const offset = before.split('\n').length - 1;
      return { index, editorLine: bodyLine + offset };
    }
  }
  return null;
}
