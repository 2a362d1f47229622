// Lints Cypher statements with Neo4j's own front end (npm @neo4j-cypher/language-support,
// pinned in package.json): its parser and semantic analysis, as Cypher 5.
//
//   node lint.mjs statements.json   statements as {name: text}; fails on any error and on any
//                                   warning not allowed below; prints the figures. Runs the
//                                   self-test first and fails if it does.
//   node lint.mjs --self-test       only the self-test, which proves the linter is live:
//                                   known-bad statements must fail, known-good ones pass
//
// Statements are linted in worker threads, one per core (up to 4): ~0.1 s each on one core.
//
// Offline: the built-in functions and procedures checked against come with the package (the
// schema it records for its own tests, taken from a Neo4j server), without plugins such as
// APOC or GDS, which graphmem does not need.
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import { isNotParamError, lintCypherQuery, testData } from '@neo4j-cypher/language-support';

const VERSION = 'CYPHER 5';
const BUILT_IN_PROCEDURES = ['db.', 'dbms.', 'tx.', 'cdc.'];
const ERROR = 1;
const WARNING = 2;

// Warnings graphmem accepts, and why. Any other warning fails the lint.
const ALLOWED = [
  {
    kind: 'CALL subquery without a variable scope clause',
    // Deprecated since Neo4j 5.23 in favour of CALL (x) { ... }, which FalkorDB rejects; the
    // statements are shared, so they keep the older form, still valid Cypher 5. The driver's
    // deprecation notifications are switched off (graphmem/store/neo4j_engine.py).
    matches: (message) =>
      message.startsWith('CALL subquery without a variable scope clause is deprecated.'),
  },
];

function dbSchema() {
  const functions = testData.mockSchema.functions[VERSION];
  const procedures = testData.mockSchema.procedures[VERSION];
  return {
    defaultLanguage: VERSION,
    functions: {
      [VERSION]: Object.fromEntries(Object.entries(functions).filter(([, f]) => f.isBuiltIn)),
    },
    procedures: {
      [VERSION]: Object.fromEntries(
        Object.entries(procedures).filter(([name]) =>
          BUILT_IN_PROCEDURES.some((prefix) => name.startsWith(prefix)),
        ),
      ),
    },
  };
}

// The diagnostics of one statement: {errors, warnings}, each warning with its allowed kind.
// Parameters are not declared to the linter: graphmem passes them at run time.
function lint(text, schema) {
  const found = lintCypherQuery(text, schema).diagnostics.filter(isNotParamError);
  const errors = found.filter((d) => d.severity === ERROR).map((d) => d.message);
  const warnings = found
    .filter((d) => d.severity === WARNING)
    .map((d) => ({ message: d.message, kind: ALLOWED.find((a) => a.matches(d.message))?.kind }));
  return { errors, warnings };
}

// Lint [key, text] pairs in worker threads; resolves to a Map key -> {errors, warnings}.
async function lintMany(pairs) {
  const threads = Math.max(1, Math.min(availableParallelism(), 4, pairs.length));
  const shares = Array.from({ length: threads }, (_, i) => pairs.filter((_, j) => j % threads === i));
  const results = await Promise.all(
    shares.map(
      (share) =>
        new Promise((resolve, reject) => {
          const worker = new Worker(new URL(import.meta.url), { workerData: share });
          worker.once('message', resolve);
          worker.once('error', reject);
        }),
    ),
  );
  return new Map(results.flat());
}

function report(statements, linted) {
  const out = { statements: 0, errors: [], allowed: new Map(), refused: [], warned: new Set() };
  for (const name of Object.keys(statements)) {
    const { errors, warnings } = linted.get(name);
    out.statements += 1;
    out.errors.push(...errors.map((message) => ({ name, message })));
    for (const warning of warnings) {
      out.warned.add(name);
      if (warning.kind === undefined) out.refused.push({ name, message: warning.message });
      else out.allowed.set(warning.kind, (out.allowed.get(warning.kind) ?? 0) + 1);
    }
  }
  return out;
}

function print(report) {
  for (const { name, message } of report.errors) console.log(`ERROR ${name}: ${message}`);
  for (const { name, message } of report.refused) console.log(`WARNING ${name}: ${message}`);
  const allowed = [...report.allowed.values()].reduce((a, b) => a + b, 0);
  console.log(
    `neo4j-lint: ${report.statements} statements, ${report.errors.length} errors, ` +
      `${allowed + report.refused.length} warnings in ${report.warned.size} statements ` +
      `(${report.refused.length} not allowed)`,
  );
  for (const [kind, count] of report.allowed) console.log(`  allowed warning ×${count}: ${kind}`);
}

// Known-bad statements must fail and known-good ones pass, or the lint proves nothing.
const SELF_TEST = [
  { text: 'MATCH (n:Series {id: $id} RETURN n', fails: true, why: 'a syntax error' },
  { text: 'RETURN noSuchFunction(1) AS x', fails: true, why: 'an unknown function' },
  { text: 'RETURN toJSON([1, 2]) AS x', fails: true, why: "FalkorDB's toJSON, not in Neo4j" },
  { text: 'CALL db.indexes() YIELD label RETURN label', fails: true, why: 'a removed procedure' },
  { text: 'MATCH (n) RETURN id(n) AS i', fails: true, why: 'a warning not allowed (id())' },
  { text: 'MATCH (n:Series {id: $id}) RETURN n', fails: false, why: 'a plain read' },
  {
    text: 'MATCH (s) CALL { WITH s MATCH (s)-->(x) RETURN count(x) AS n } RETURN n',
    fails: false,
    why: 'an allowed warning',
  },
];

function selfTest(linted) {
  let wrong = 0;
  SELF_TEST.forEach(({ text, fails, why }, i) => {
    const { errors, warnings } = linted.get(`self-test ${i}`);
    const failed = errors.length > 0 || warnings.some((w) => w.kind === undefined);
    wrong += failed !== fails;
    const verdict = failed === fails ? 'ok' : 'WRONG';
    console.log(`self-test ${verdict}: ${why} ${fails ? 'fails' : 'passes'}: ${text}`);
  });
  console.log(`neo4j-lint self-test: ${SELF_TEST.length - wrong}/${SELF_TEST.length} as expected`);
  return wrong === 0;
}

async function main(args) {
  if (args.length !== 1) {
    console.error('usage: node lint.mjs statements.json | node lint.mjs --self-test');
    return 2;
  }
  const statements = args[0] === '--self-test' ? {} : JSON.parse(readFileSync(args[0], 'utf8'));
  const tests = SELF_TEST.map(({ text }, i) => [`self-test ${i}`, text]);
  const linted = await lintMany([...tests, ...Object.entries(statements)]);
  const live = selfTest(linted);
  if (args[0] === '--self-test') return live ? 0 : 1;
  const found = report(statements, linted);
  print(found);
  return live && found.statements > 0 && found.errors.length + found.refused.length === 0 ? 0 : 1;
}

if (isMainThread) {
  process.exitCode = await main(process.argv.slice(2));
} else {
  const schema = dbSchema();
  parentPort.postMessage(workerData.map(([key, text]) => [key, lint(text, schema)]));
}
