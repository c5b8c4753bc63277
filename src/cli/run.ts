// Entry point for running the CLI from source (`npm run keel -- …`); bin/keel.js runs the build.
import { main } from "./main.js";

process.exitCode = await main(process.argv);
