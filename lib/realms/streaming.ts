// Provider-backed files (the realm side): what a realm's `streamFile` hands back and what `receiveUpload` is
// given. lib/delivery signs the links (live-urls.ts); lib/tools/files.ts redeems them, re-running both gates.

/** The current bytes of a provider's file. `size`, when known, must match what the body yields. */
export type StreamedFile = { contentType: string; size?: number; filename: string; body: ReadableStream<Uint8Array> | Uint8Array };

/** Bytes PUT to an upload slot: the ref the slot was minted on, the name and type, and the minting call's params. */
export type UploadInput = { ref: string; name: string; contentType: string; bytes: Uint8Array; params: Record<string, string> };
