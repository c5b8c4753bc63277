import { describeParity } from "./describe-parity.js";
import { issue13MessageIdPrograms, issue13ToolsPrograms } from "./programs/issue13-tools.js";

describeParity(
  "issue 13 tools stream mode and streamEvents v3 tools/messages",
  issue13ToolsPrograms,
);

describeParity("issue 13 messages stream: one id per streamed message", issue13MessageIdPrograms);
