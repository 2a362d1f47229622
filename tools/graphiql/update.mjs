// Rebuilds the GraphiQL copy graphmem serves (api/static/graphiql/vendor) from the npm packages
// pinned in package.json and package-lock.json (installed by `npm ci` in this directory).
//
//   node update.mjs           write the vendored files, THIRD-PARTY-LICENSES.txt and SHA256SUMS
//   node update.mjs --check   build into a temporary directory and fail if anything differs
//                             from the committed copy (the build is deterministic)
//
// Every file taken from a package is checked against the SHA-256 recorded below before it is
// used, on top of npm's own check of each package's integrity hash from the lock file.
// graphiql 3.8.3's "graphiql.min.js" is webpack's development build (3.5 MB, comments and
// all), so it is minified here with esbuild (pinned): 1.5 MB. Versions are those strawberry's
// own GraphiQL page loads from a CDN (strawberry/static/graphiql.html), without js-cookie,
// which only reads Django's CSRF cookie.
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { transformSync } from 'esbuild';

const HERE = dirname(fileURLToPath(import.meta.url));
const VENDOR = resolve(HERE, '../../api/static/graphiql/vendor');
const MODULES = join(HERE, 'node_modules');

// out: the vendored name; from: the file in node_modules and its SHA-256; minify: esbuild loader
const FILES = [
  {
    out: 'react.production.min.js',
    from: 'react/umd/react.production.min.js',
    sha256: '4b4969fa4ef3594324da2c6d78ce8766fbbc2fd121fff395aedf997db0a99a06',
  },
  {
    out: 'react-dom.production.min.js',
    from: 'react-dom/umd/react-dom.production.min.js',
    sha256: '21758ed084cd0e37e735722ee4f3957ea960628a29dfa6c3ce1a1d47a2d6e4f7',
  },
  {
    out: 'graphiql.min.js',
    from: 'graphiql/graphiql.min.js',
    sha256: '22faab94067b695e5f7959619fbe686ebcc8955002a0c97d986bcbba4ad4bc2c',
    minify: 'js',
  },
  {
    out: 'graphiql.min.css',
    from: 'graphiql/graphiql.min.css',
    sha256: 'b1868247f8e0502cd869e581f5f3cb55b334862e7f51b1d6cbace11059b9adc2',
    minify: 'css',
  },
  {
    out: 'plugin-explorer.umd.js',
    from: '@graphiql/plugin-explorer/dist/index.umd.js',
    sha256: '083e37e501d3e3920a60e627b82191af056009124dce82a332e8ac74db6ca38b',
  },
  {
    out: 'plugin-explorer.css',
    from: '@graphiql/plugin-explorer/dist/style.css',
    sha256: '762850cb69873400d0ab1737c6158aee91f5c38195bc4a30ee02a3c5d5af4e01',
  },
];

// Whose code each file holds: a package and what it depends on (and its own peers where the
// bundle includes them: graphiql's holds graphql 16.9.0); React is loaded from its own files.
const BUNDLES = [
  { files: 'react.production.min.js', root: 'react', peers: false },
  { files: 'react-dom.production.min.js', root: 'react-dom', peers: false },
  { files: 'graphiql.min.js, graphiql.min.css', root: 'graphiql', peers: true, map: 'graphiql/graphiql.min.js.map' },
  { files: 'plugin-explorer.umd.js, plugin-explorer.css', root: '@graphiql/plugin-explorer', peers: false },
];
const EXTERNAL = new Set(['react', 'react-dom']); // in the bundles above: their own files

const sha256 = (data) => createHash('sha256').update(data).digest('hex');

function source(file) {
  const data = readFileSync(join(MODULES, file.from));
  const digest = sha256(data);
  if (digest !== file.sha256) {
    throw new Error(`${file.from}: sha256 ${digest}, expected ${file.sha256} (update the pin)`);
  }
  if (!file.minify) return data;
  return Buffer.from(transformSync(data.toString('utf8'), {
    loader: file.minify, minify: true, legalComments: 'eof', charset: 'utf8',
  }).code);
}

// package-lock.json's view of node_modules: where each dependency of a package resolves
const LOCK = JSON.parse(readFileSync(join(HERE, 'package-lock.json'), 'utf8')).packages;

function resolveDep(from, name) {
  for (let base = from; ; ) {
    const candidate = `${base ? `${base}/` : ''}node_modules/${name}`;
    if (LOCK[candidate]) return candidate;
    if (!base) return null;
    const cut = base.lastIndexOf('/node_modules/');
    base = cut < 0 ? '' : base.slice(0, cut);
  }
}

function tree({ root, peers }) {
  const seen = new Map(); // lock path -> name
  const visit = (path, name) => {
    if (!path || seen.has(path)) return;
    seen.set(path, name);
    const entry = LOCK[path];
    const atRoot = path === `node_modules/${root}`;
    const deps = { ...entry.dependencies, ...(peers && atRoot ? entry.peerDependencies : {}) };
    for (const dep of Object.keys(deps).sort()) {
      if (atRoot || !EXTERNAL.has(dep)) visit(resolveDep(path, dep), dep);
    }
  };
  visit(`node_modules/${root}`, root);
  if (root !== 'react' && root !== 'react-dom') {
    for (const [path, name] of seen) if (EXTERNAL.has(name)) seen.delete(path);
  }
  return [...seen].map(([path, name]) => ({ path, name, version: LOCK[path].version }));
}

// packages the bundle's source map names that the dependency tree does not hold (optional peers)
function fromMap(bundle, listed) {
  if (!bundle.map) return [];
  const { sources } = JSON.parse(readFileSync(join(MODULES, bundle.map), 'utf8'));
  const names = new Set();
  for (const path of sources) {
    const parts = path.split('node_modules/').at(-1).split('/');
    if (path.includes('node_modules/')) names.add(parts[0].startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]);
  }
  return [...names].filter((name) => !listed.has(name) && !EXTERNAL.has(name)).sort();
}

function licenceText(path) {
  const dir = join(HERE, path);
  const names = readdirSync(dir).filter((f) => /^(licen[cs]e|copying)/i.test(f)).sort();
  if (names.length) return names.map((f) => readFileSync(join(dir, f), 'utf8').trim()).join('\n\n');
  const declared = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).license;
  return `(the package ships no licence file; its package.json declares: ${declared})`;
}

function licences() {
  const lines = [
    'Third-party software in this directory and its licences.',
    'Written by tools/graphiql/update from the packages package-lock.json pins: each file,',
    'then the packages whose code it holds (the bundles were built by their authors from these',
    "packages' releases; within the ranges they declare, the versions may differ slightly).",
    '@graphiql/plugin-explorer comes from the graphiql repository, under graphiql\'s licence.',
    '',
  ];
  const texts = new Map();
  for (const bundle of BUNDLES) {
    lines.push(`${bundle.files}:`);
    const packages = tree(bundle);
    for (const pkg of packages) {
      const { license } = LOCK[pkg.path];
      lines.push(`  ${pkg.name}@${pkg.version} (${license ?? 'licence not declared'})`);
      texts.set(`${pkg.name}@${pkg.version}`, licenceText(pkg.path));
    }
    for (const name of fromMap(bundle, new Set(packages.map((pkg) => pkg.name)))) {
      const path = Object.keys(LOCK).find((key) => key.endsWith(`node_modules/${name}`));
      if (path) {
        const { version, license } = LOCK[path];
        lines.push(`  ${name}@${version} (${license ?? 'licence not declared'})`);
        texts.set(`${name}@${version}`, licenceText(path));
      } else {
        lines.push(`  ${name} (named by the bundle's source map; not installed by npm here, so`,
          '    its licence text is not copied: see the package)');
      }
    }
    lines.push('');
  }
  for (const [pkg, text] of [...texts].sort()) {
    lines.push('='.repeat(78), pkg, '='.repeat(78), text, '');
  }
  return Buffer.from(lines.join('\n'));
}

function build(dir) {
  const outputs = FILES.map((file) => [file.out, source(file)]);
  outputs.push(['THIRD-PARTY-LICENSES.txt', licences()]);
  for (const [name, data] of outputs) writeFileSync(join(dir, name), data);
  const sums = outputs.map(([name, data]) => `${sha256(data)}  ${name}\n`).join('');
  writeFileSync(join(dir, 'SHA256SUMS'), sums);
  return [...outputs.map(([name]) => name), 'SHA256SUMS'];
}

if (process.argv.includes('--check')) {
  const dir = mkdtempSync(join(tmpdir(), 'graphiql-'));
  try {
    const differ = build(dir).filter((name) => {
      try {
        return !readFileSync(join(dir, name)).equals(readFileSync(join(VENDOR, name)));
      } catch {
        return true;
      }
    });
    if (differ.length) {
      console.error(`differs from a fresh build: ${differ.join(', ')} (run tools/graphiql/update)`);
      process.exit(1);
    }
    console.log(`${VENDOR}: as built from the pinned packages`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
} else {
  for (const name of build(VENDOR)) {
    const size = readFileSync(join(VENDOR, name)).length;
    console.log(`${String(size).padStart(9)}  ${name}`);
  }
}
