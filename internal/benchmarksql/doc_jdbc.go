// Package benchmarksql: the JDBC parameters of a props file's conn URL (moved from docs/tpcc.md).
//
// # JDBC parameters in conn
//
//	| parameter | handling |
//	|---|---|
//	| useSSL | mapped: false → tls=false, true → tls=preferred |
//	| sslMode | mapped: DISABLED → false, PREFERRED → preferred, REQUIRED → skip-verify, VERIFY_* → true |
//	| connectTimeout, socketTimeout | mapped (milliseconds) to the DSN's timeout, readTimeout and writeTimeout |
//	| characterEncoding | mapped: utf8 → utf8mb4, latin1 |
//	| user, password | used when the props keys are absent |
//	| useServerPrepStmts, rewriteBatchedStatements, cachePrepStmts, prepStmtCacheSize, prepStmtCacheSqlLimit, useConfigs, serverTimezone, autoReconnect, other Connector/J tuning flags | accepted silently: walab already behaves that way (server-side prepared statements, multi-row loading, per-terminal statement cache, reconnects in the runner) |
//	| unknown | warning, never an error |
package benchmarksql
