// CPostgres: exposes the system libpq to Swift, plus wrappers for what Swift cannot import (char macros).
#include <libpq-fe.h>
#include <postgres_ext.h>

/// The SQLSTATE of a failed result (PG_DIAG_SQLSTATE), or NULL when libpq produced the error itself.
static inline const char *strata_pq_sqlstate(const PGresult *res) { return PQresultErrorField(res, PG_DIAG_SQLSTATE); }

/// The primary, human-readable message of a failed result (PG_DIAG_MESSAGE_PRIMARY).
static inline const char *strata_pq_message(const PGresult *res) { return PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY); }

/// The detail line of a failed result (PG_DIAG_MESSAGE_DETAIL); it may quote values, so it is parsed, never shown.
static inline const char *strata_pq_detail(const PGresult *res) { return PQresultErrorField(res, PG_DIAG_MESSAGE_DETAIL); }

/// The table a constraint error names (PG_DIAG_TABLE_NAME).
static inline const char *strata_pq_table(const PGresult *res) { return PQresultErrorField(res, PG_DIAG_TABLE_NAME); }

/// The column a constraint error names (PG_DIAG_COLUMN_NAME).
static inline const char *strata_pq_column(const PGresult *res) { return PQresultErrorField(res, PG_DIAG_COLUMN_NAME); }

/// The constraint an error names (PG_DIAG_CONSTRAINT_NAME).
static inline const char *strata_pq_constraint(const PGresult *res) { return PQresultErrorField(res, PG_DIAG_CONSTRAINT_NAME); }

static inline void strata_pq_ignore_notice(void *arg, const char *message) { (void)arg; (void)message; }

/// Drops server notices and warnings instead of printing them on stderr (a library must not write there).
static inline void strata_pq_silence_notices(PGconn *conn) { PQsetNoticeProcessor(conn, strata_pq_ignore_notice, (void *)0); }
