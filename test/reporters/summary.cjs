// Prints one plain closing line, "tests: N passed, N failed, N skipped", after every jest run, and
// appends the counts to $TEST_SUMMARY_FILE when set (.ci/run adds up its runs from it).
const fs = require('node:fs');

class SummaryReporter {
  onRunComplete(_contexts, results) {
    const passed = results.numPassedTests;
    const failed = results.numFailedTests + results.numRuntimeErrorTestSuites;
    const skipped = results.numPendingTests + results.numTodoTests;
    process.stdout.write(`\ntests: ${passed} passed, ${failed} failed, ${skipped} skipped\n`);
    if (process.env.TEST_SUMMARY_FILE) fs.appendFileSync(process.env.TEST_SUMMARY_FILE, `${passed} ${failed} ${skipped}\n`);
  }
}

module.exports = SummaryReporter;
