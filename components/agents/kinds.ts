// Actor kinds in words a person understands.
export const actorKindWords: Record<string, { label: string; withArticle: string; explain: string }> = {
  hosted_agent: { label: "Hosted agent", withArticle: "a hosted agent", explain: "An AI agent that Realmgate runs for you." },
  mcp_client: { label: "MCP client", withArticle: "an MCP client", explain: "An outside AI app (a desktop or chat assistant) connected over MCP." },
  automation: { label: "Automation", withArticle: "an automation", explain: "A script or scheduled job that calls Realmgate with a token." },
};

export const kindLabel = (kind: string) => actorKindWords[kind]?.label ?? kind;
