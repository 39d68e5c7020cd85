#ifndef STRATA_CMARIADB_SHIM_H
#define STRATA_CMARIADB_SHIM_H
#include <mysql.h>
#endif
