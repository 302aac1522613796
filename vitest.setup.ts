// Unit and integration tests: an in-memory PGlite per worker unless DATABASE_URL points at PostgreSQL.
process.env.AUTH_SECRET ??= "test-secret-test-secret-test-secret-0123456789";
process.env.REALMGATE_DATA_DIR ??= ":memory:";
process.env.APP_URL ??= "http://realmgate.test";
