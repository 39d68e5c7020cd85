// CPostgres: exposes the system libpq to Swift.
#include <libpq-fe.h>
