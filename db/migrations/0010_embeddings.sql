CREATE TABLE "embedding_cache" (
	"model" text NOT NULL,
	"text_hash" text NOT NULL,
	"dims" integer NOT NULL,
	"vector" real[] NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "embedding_cache_model_text_hash_pk" PRIMARY KEY("model","text_hash")
);
