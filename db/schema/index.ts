// The platform's tables. Each realm's tables are its own file, db/schema/<realm>.ts, imported from there by the
// realm's code (drizzle.config.ts reads every file of db/schema/, so a new realm adds no line here).
export * from "./tenancy";
export * from "./authz";
export * from "./audit";
export * from "./delivery";
export * from "./mcp";
export * from "./openapi";
export * from "./connections";
export * from "./embeddings";
export * from "./system";
export * from "./working-sets";
export * from "./remote";
