export * from "./tenancy";
export * from "./authz";
export * from "./audit";
export * from "./delivery";
export * from "./memory";
export * from "./board";
export * from "./docs";
