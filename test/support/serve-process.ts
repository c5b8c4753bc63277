import { type ChildProcess, spawn } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

/**
 * `keel serve` in a child process (a real process on real loopback, through the CLI as an
 * operator starts it) on the SQLite file `db` with the graphs of `config`; resolves once it
 * listens, with its URL. The crash suite kills it with SIGKILL; the serve bench measures its CPU.
 */
export function startServeProcess(options: {
  db: string;
  config: string;
  env?: Record<string, string>;
}): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(
    process.execPath,
    [
      "--import",
      "tsx",
      join(ROOT, "src/cli/run.ts"),
      "serve",
      "--port",
      "0",
      "--json",
      "--no-open",
      "--db",
      options.db,
      "--config",
      options.config,
    ],
    {
      cwd: ROOT,
      env: { ...process.env, KEEL_LOG_LEVEL: "warn", ...options.env },
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  return new Promise((resolve, reject) => {
    let out = "";
    child.stdout?.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      const line = out.split("\n").find((l) => l.startsWith("{"));
      if (line) resolve({ child, url: (JSON.parse(line) as { url: string }).url });
    });
    child.once("exit", (code) => reject(new Error(`keel serve exited with ${code}: ${out}`)));
  });
}
