// PoolInstantTests: the pool's deadlines on the monotonic clock order, add and saturate as ContinuousClock's did.
import Testing

@testable import Strata

@Suite("Pool instants")
struct PoolInstantTests {
    @Test("now moves forward; a later instant is greater and the difference is its nanoseconds")
    func ordering() {
        let a = PoolInstant.now
        let b = a.adding(seconds: 1.5)
        #expect(a < b)
        #expect(b.nanoseconds(since: a) == 1_500_000_000)
        #expect(a.nanoseconds(since: b) == -1_500_000_000)
        #expect(PoolInstant.now >= a)
        #expect(a.adding(nanoseconds: 250).nanoseconds(since: a) == 250)
    }

    @Test("a far deadline saturates at the largest instant instead of wrapping into the past")
    func saturates() {
        let now = PoolInstant.now
        #expect(now.adding(seconds: 1e18) == PoolInstant(nanoseconds: .max))
        #expect(now.adding(seconds: .infinity) == PoolInstant(nanoseconds: .max))
        #expect(now.adding(seconds: .nan) == PoolInstant(nanoseconds: .max))
        #expect(now.adding(seconds: -.infinity) == PoolInstant(nanoseconds: .min))
        #expect(now.adding(nanoseconds: .max) == PoolInstant(nanoseconds: .max))
        #expect(PoolInstant(nanoseconds: .min + 5).adding(nanoseconds: -10) == PoolInstant(nanoseconds: .min))
        #expect(now.adding(seconds: 1e18) > now.adding(seconds: 1e9))
        #expect(PoolInstant(nanoseconds: .max).nanoseconds(since: PoolInstant(nanoseconds: -5)) == .max)
        #expect(PoolInstant(nanoseconds: .min).nanoseconds(since: now) == .min)
    }

    @Test("a pool timeout becomes a deadline that far ahead; one of 1e9 seconds or more waits forever")
    func poolTimeoutDeadline() throws {
        let before = PoolInstant.now
        let deadline = try #require(5.0.deadline)
        let after = PoolInstant.now
        #expect(deadline.nanoseconds(since: before) >= 5_000_000_000)
        #expect(deadline.nanoseconds(since: after) <= 5_000_000_000)
        #expect(1e9.deadline == nil)
        #expect(Double.infinity.deadline == nil)
    }
}
