// What a realm may know of delivery besides the DeliveryPort it is handed (that type is in lib/realms/contract.ts):
// the port's limits. Nothing here reaches the database.

/** The largest file the DeliveryPort stores (host_file, attachments, large results). */
export const MAX_FILE_BYTES = 512 * 1024;

/** The most a provider-backed download streams, or an upload slot takes (lib/delivery/live-urls.ts). */
export const MAX_LIVE_BYTES = 16 * 1024 * 1024;
