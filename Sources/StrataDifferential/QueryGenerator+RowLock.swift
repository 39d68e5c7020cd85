// QueryGenerator+RowLock: now and then a generated read carries a row lock, run inside a transaction everywhere.
import Strata

extension QueryGenerator {
    /// Gives a tenth of the reads that can take one a row lock (`FOR UPDATE`, `FOR SHARE`, with `NOWAIT` or
    /// `SKIP LOCKED`), drawn from a copy of `rng` so the rest of the run's queries stay what their seed made them.
    /// The engine runs a locked read between BEGIN and ROLLBACK; with no other transaction it must read exactly
    /// the rows the unlocked read would, on every driver.
    func lock(_ s: inout Select, _ rng: SplitMix64) {
        var side = rng
        guard side.chance(0.1), (try? s.checkLock()) != nil, s.lock == nil else { return }
        var candidate = s
        candidate.lock = RowLock(
            side.chance(0.5) ? .update : .share, side.pick([RowLock.Wait.wait, .noWait, .skipLocked]))
        guard (try? candidate.checkLock()) != nil else { return }
        s = candidate
    }
}
