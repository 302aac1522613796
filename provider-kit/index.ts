// The provider kit's public surface: everything a provider imports, from one place.
export * from "./protocol";
export * from "./types";
export * from "./errors";
export * from "./replay";
export * from "./verify";
export * from "./server";
export * from "./register";
export * from "./testing";
