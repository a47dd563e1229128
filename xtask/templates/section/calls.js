// What this section asks the Lab's workers to run (lab/worker.js dispatches the union of every
// section's calls): call name → function, given the core's module. Runs in a worker, never on
// the main thread.

export const calls = (core) => ({ simulateNewModel: core.simulateNewModel });
