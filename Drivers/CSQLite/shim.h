// CSQLite: exposes the system libsqlite3 to Swift, plus wrappers for its variadic and macro APIs.
#include <sqlite3.h>

/// Turns off double-quoted string literals, so a misspelt quoted identifier is an error, not a string.
static inline int strata_sqlite_disable_dqs(sqlite3 *db) {
    int rc = sqlite3_db_config(db, SQLITE_DBCONFIG_DQS_DML, 0, (int *)0);
    if (rc != SQLITE_OK) return rc;
    return sqlite3_db_config(db, SQLITE_DBCONFIG_DQS_DDL, 0, (int *)0);
}

/// SQLITE_TRANSIENT, which Swift cannot import as a macro: SQLite copies the bound bytes.
static inline sqlite3_destructor_type strata_sqlite_transient(void) { return SQLITE_TRANSIENT; }
