/**
 * Galata/Playwright configuration: the system Chromium (browser downloads do not work here),
 * a JupyterLab started on a seeded run store, artifacts under test-artifacts/.
 */
const path = require('path');
const baseConfig = require('@jupyterlab/galata/lib/playwright-config');

const repo = path.resolve(__dirname, '..');
// CP_UI_ARTIFACTS and CP_UI_PORT let a second run go side by side with another one; CP_UI_WORKERS=1 runs one spec
// at a time.
const artifacts = process.env.CP_UI_ARTIFACTS || path.join(repo, 'test-artifacts');
const port = process.env.CP_UI_PORT || '8899';
const python = process.env.CP_PYTHON || path.join(repo, '.venv', 'bin', 'python');

const serverEnv = {
  ...process.env,
  CP_UI_PORT: port,
  JUPYTERLAB_GALATA_ROOT_DIR: path.join(artifacts, 'ui-root'),
  COMPILE_PROFILE_DB: path.join(artifacts, 'ui-runs.sqlite'),
  TORCHINDUCTOR_CACHE_DIR: process.env.TORCHINDUCTOR_CACHE_DIR || path.join(repo, '.cache', 'inductor')
};
// The tests call the seed script too (to add a run), with the same store.
Object.assign(process.env, {
  CP_SEED_ENV: JSON.stringify({
    JUPYTERLAB_GALATA_ROOT_DIR: serverEnv.JUPYTERLAB_GALATA_ROOT_DIR,
    COMPILE_PROFILE_DB: serverEnv.COMPILE_PROFILE_DB
  }),
  CP_PYTHON: python,
  CP_UI_ARTIFACTS: artifacts
});

module.exports = {
  ...baseConfig,
  testDir: './tests',
  outputDir: path.join(artifacts, 'ui-results'),
  reporter: [['list'], ['html', { open: 'never', outputFolder: path.join(artifacts, 'ui-report') }]],
  timeout: 90 * 1000,
  expect: { timeout: 20 * 1000 },
  // The order two workers need (a spec file to each took 7.7-9 min against 14.8 for one, on the 2-core machine);
  // runlist.spec.ts first and alone: it reads the run list as the seeded store holds it (its count, newest first),
  // before any other spec profiles a cell or imports a trace into the same store; views.spec.ts last and alone: it
  // walks the run list by position, and a run another spec added meanwhile moved it (Enter opened the row that had
  // been second).  Only those five tests run with a worker idle: the card's and the views' other tests find their
  // runs by id and run beside the rest (compile_profile.spec.ts and views_layout.spec.ts; the whole of
  // compile_profile.spec.ts and views.spec.ts had run alone, 157 s of CI's 506 s with one worker idle).
  workers: process.env.CP_UI_WORKERS ? Number(process.env.CP_UI_WORKERS) : 2,
  fullyParallel: false,
  projects: [
    { name: 'seeded store', testMatch: /runlist\.spec\.ts$/ },
    {
      name: 'the rest',
      testIgnore: [/runlist\.spec\.ts$/, /(^|\/)views\.spec\.ts$/],
      dependencies: ['seeded store']
    },
    { name: 'run list walked by position', testMatch: /(^|\/)views\.spec\.ts$/, dependencies: ['the rest'] }
  ],
  retries: 0,
  use: {
    ...baseConfig.use,
    baseURL: `http://127.0.0.1:${port}`,
    video: 'off',
    trace: 'retain-on-failure',
    viewport: { width: 1400, height: 900 },
    launchOptions: {
      executablePath: process.env.CP_CHROMIUM || '/usr/bin/chromium',
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run'
      ]
    }
  },
  webServer: {
    command: `"${python}" seed_runs.py && "${path.join(path.dirname(python), 'jupyter')}" lab --config jupyter_server_test_config.py`,
    cwd: __dirname,
    url: `http://127.0.0.1:${port}/lab`,
    timeout: 120 * 1000,
    reuseExistingServer: false,
    env: serverEnv
  }
};
