// Worker-thread entry of imports' compile jobs (see compile-runner.ts): says it loaded, then runs each job it is
// sent — one at a time — and answers with the result (the contracts and the gzipped document transferred, not
// copied) or the error.
import { parentPort } from "node:worker_threads";
import { errorToWire, runCompileJob, type CompileJobInput } from "./compile-job";

const port = parentPort;
if (port) {
  port.on("message", (m: { id: number; job: CompileJobInput }) => {
    runCompileJob(m.job, "worker").then(
      (result) => {
        const transfer = [result.specGzip?.buffer, result.contracts?.bytes.buffer, result.contracts?.offsets.buffer].filter((b): b is ArrayBuffer => b instanceof ArrayBuffer);
        port.postMessage({ type: "done", id: m.id, result }, transfer);
      },
      (err: unknown) => port.postMessage({ type: "error", id: m.id, error: errorToWire(err) }),
    );
  });
  port.postMessage({ type: "ready" });
}
