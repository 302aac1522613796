// Runs once when a server process starts (not during `next build`): configuration, database, demo seed.
export async function register() {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const { startUp } = await import("./lib/startup");
  await startUp();
}
