// Entry point for running the CLI from source (`npm run keel -- …`); bin/keel.js runs the build.
import { main } from "./main.js";

// npm runs scripts from the package's folder; INIT_CWD is where the user typed the command, so
// `npm run keel -- run examples/x.json` and the project lookup both start from there.
const initCwd = process.env.INIT_CWD;
if (process.env.npm_lifecycle_event === "keel" && initCwd) process.chdir(initCwd);

process.exitCode = await main(process.argv);
