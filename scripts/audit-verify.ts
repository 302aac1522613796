// `npm run audit:verify -- <file> [--digest-dir <dir>] [--public-key <base64>] [--json]`: check an export of
// `npm run audit:export` offline — no database — against the tenant's checkpoints in the digest store.
// Needs the audit MAC keys (REALMGATE_AUDIT_KEYS, or AUTH_SECRET for the development key) and the checkpoint
// signing public key (--public-key, else derived from REALMGATE_AUDIT_SIGNING_KEY or AUTH_SECRET). The digest
// store is --digest-dir, else REALMGATE_AUDIT_DIGEST_DIR, else <REALMGATE_DATA_DIR>/audit-digests.
// `npm run audit:verify -- --show-public-key` prints the configured signing key's public key.
// Exit status: 0 intact, 1 broken, 2 usage or configuration (e.g. no checkpoint verifies with the key given).
import { recordName } from "@/lib/audit/chain";
import { verifyExportFile } from "@/lib/audit/export";
import { parsePublicKey, rawPublicKey, signingKid } from "@/lib/audit/key-format";
import { auditDigestDirFrom, auditKeyringFrom, auditSignerFrom } from "@/lib/audit/keys";

function arg(args: string[], name: string): string | undefined {
  const i = args.indexOf(name);
  if (i >= 0) return args[i + 1];
  return args.find((a) => a.startsWith(`${name}=`))?.slice(name.length + 1);
}

async function main(): Promise<number> {
  const args = process.argv.slice(2);
  if (args.includes("--show-public-key")) {
    const signer = auditSignerFrom(process.env);
    console.log(`${rawPublicKey(signer.current.publicKey)}  (${signer.current.kid}${signer.source === "auth_secret" ? ", development key derived from AUTH_SECRET" : ""})`);
    return 0;
  }
  const valued = new Set(["--digest-dir", "--public-key"]);
  const file = args.find((a, i) => !a.startsWith("--") && !valued.has(args[i - 1] ?? ""));
  if (!file) {
    console.error("Usage: npm run audit:verify -- <export.jsonl> [--digest-dir <dir>] [--public-key <base64>] [--json]");
    return 2;
  }
  const keyring = auditKeyringFrom(process.env);
  const given = arg(args, "--public-key");
  let verifiers;
  if (given) {
    const pub = parsePublicKey(given);
    verifiers = new Map([[signingKid(pub), pub]]);
  } else verifiers = auditSignerFrom(process.env).verifiers;
  const digestDir = arg(args, "--digest-dir") ?? auditDigestDirFrom(process.env);
  const result = await verifyExportFile(file, { digestDir, keyring, verifiers });
  if (args.includes("--json")) console.log(JSON.stringify(result, null, 2));
  else if (result.ok) {
    console.log(
      `Intact: ${result.checked} record(s) of tenant ${result.tenant_id}` +
        (result.lanes.length > 1 ? ` in ${result.lanes.length} lanes` : "") +
        (result.legacy_seq ? ` (legacy prefix #1–#${result.legacy_seq})` : "") +
        (result.checkpoint ? `; sealed by checkpoints (the latest of ${result.checkpoint.at}), ${result.unsealed} after them` : "") +
        ".",
    );
  } else console.log(`Broken (${result.finding ?? "unreadable"}${result.first_broken ? ` at ${recordName(result.first_broken.lane, result.first_broken.seq)}` : ""}): ${result.message}`);
  for (const w of result.warnings) console.error(`Warning: ${w}`);
  if (result.ok && !result.checkpoint && result.unverified_checkpoints > 0) {
    console.error(`None of the ${result.unverified_checkpoints} checkpoint(s) in ${digestDir} is signed by the given signing key: check --public-key (or REALMGATE_AUDIT_SIGNING_KEY).`);
    return 2;
  }
  return result.ok ? 0 : 1;
}

main()
  .then((code) => process.exit(code))
  .catch((err: unknown) => {
    console.error(`audit:verify failed: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(2);
  });
