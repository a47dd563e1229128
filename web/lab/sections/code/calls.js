// What this section asks the Lab's workers to run (lab/worker.js dispatches the union of every
// section's calls): the snippet of lab/snippet.js, which calls the core at the
// sections' default settings.

import { snippet } from "../../snippet.js";

export const calls = () => ({ snippet });
