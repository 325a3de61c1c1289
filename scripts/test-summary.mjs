// Prints the plain closing line CI reads ("N passed, N failed") from vitest's JSON report.
import { readFileSync } from 'node:fs';

const file = process.argv[2] ?? '.vitest-report.json';
const r = JSON.parse(readFileSync(file, 'utf8'));
const skipped = (r.numPendingTests ?? 0) + (r.numTodoTests ?? 0);
console.log(`tests: ${r.numPassedTests} passed, ${r.numFailedTests} failed${skipped ? `, ${skipped} skipped` : ''}`);
process.exitCode = r.numTotalTests > 0 && r.numFailedTests === 0 && r.success ? 0 : 1;
