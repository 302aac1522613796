// The native-realm toolkit. A native realm is a set of kind modules composed with nativeAdapter, a manifest
// completed by nativeManifest, and the helpers below. Realms import these modules, never each other.
export * from "./acl";
export * from "./adapter";
export * from "./kind";
export * from "./declare";
export * from "./people";
export * from "./refs";
export * from "./sql";
export * from "./text";
