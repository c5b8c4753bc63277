#!/usr/bin/env node
// A stand-in for `claude -p --output-format json` in the jobs tests: reads the job file on stdin
// and answers the way its first argument says.
import { readFileSync } from "node:fs";

const mode = process.argv[2] ?? "ok";
const job = readFileSync(0, "utf8");
const report = {
  whatItDoes: `Summarised ${process.env.KEEL_JOB_ID}`,
  confidence: 0.8,
  safety: {
    injectionDetected: false,
    injectionType: null,
    injectionDetails: null,
    contentQuality: "clean",
  },
};
const envelope = (result) =>
  JSON.stringify({
    type: "result",
    is_error: false,
    result,
    usage: { input_tokens: job.length, output_tokens: 7 },
    modelUsage: { "fake-model-1": {} },
  });

switch (mode) {
  case "ok":
    if (!job.startsWith("You are operating inside skill-map")) process.exit(9);
    process.stdout.write(envelope(`Here it is:\n\`\`\`json\n${JSON.stringify(report)}\n\`\`\``));
    break;
  case "raw":
    process.stdout.write(JSON.stringify(report));
    break;
  case "invalid":
    process.stdout.write(envelope(JSON.stringify({ whatItDoes: "no safety", confidence: 0.5 })));
    break;
  case "garbage":
    process.stdout.write("%%% not json \u0000 at all");
    break;
  case "fail":
    process.stderr.write("boom\n");
    process.exit(3);
    break;
  case "hang":
    setInterval(() => {}, 1000);
    break;
  case "slow":
    setTimeout(() => process.stdout.write(JSON.stringify(report)), Number(process.argv[3] ?? 1000));
    break;
  default:
    process.exit(64);
}
