import type { Risk } from "@/lib/realms/contract";
import { Badge } from "@/components/ui/badge";

export const riskWords: Record<Risk, { label: string; explain: string }> = {
  read: { label: "Read", explain: "Only looks; changes nothing." },
  write: { label: "Write", explain: "Creates or changes things." },
  destructive: { label: "Destructive", explain: "Deletes or changes things for good." },
};

export function RiskBadge({ risk }: { risk: Risk }) {
  return (
    <Badge tone={risk === "read" ? "blue" : risk === "write" ? "amber" : "red"} title={riskWords[risk].explain}>
      {riskWords[risk].label}
    </Badge>
  );
}
