// lib/net: the only outbound HTTP of Realmgate (docs/network.md).
export { bareHost, isPrivateAddress, isPublicAddress } from "./address";
export { NetError, type NetErrorReason } from "./error";
export { netFetch, type NetFetchOptions } from "./fetch";
export { checkUrl, headerOf, jsonOf, listedHostsPolicy, request, textOf, type NetRequest, type NetResponse, type PrivatePolicy } from "./request";
