// PgbenchAccount: pgbench's own accounts table, mapped by a model so Strata can look up the rows pgbench -S does.
import Strata

/// A row of `pgbench_accounts` (made by `pgbench -i`): its key and the balance pgbench -S selects.
@Model(table: "pgbench_accounts")
struct PgbenchAccount {
    @Column("aid") var id: Int64?
    var abalance: Int
}
