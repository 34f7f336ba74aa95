/**
 * The console's build as `npm start` makes it (scripts/console-build.ts: .next and its source
 * hash), on its own: `npm test` runs it beside the Vitest step, whose files mostly wait, so the
 * end-to-end step's first `npm start` finds the build current instead of making it.
 */
import { buildConsole } from "./console-build";

buildConsole({ log: (line) => console.log(line), about: { purpose: "npm test" } }).done.then(
  () => console.log("the console's build is current"),
  (error: Error) => {
    console.error(error.message);
    process.exitCode = 1;
  },
);
