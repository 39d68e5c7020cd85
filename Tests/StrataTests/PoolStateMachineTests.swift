// PoolStateMachineTests: the pool's transitions driven one event at a time, with no thread, clock or database.
import Testing

@testable import Strata

/// A connection as the tests see one: an identity.
private struct Conn: Equatable, Hashable {
    let id: Int
}

/// Deadlines are plain integers: the tests say what time it is.
private typealias Machine = PoolStateMachine<Conn, Int>

@Suite("Pool state machine")
struct PoolStateMachineTests {
    /// Leases `count` fresh connections on an empty pool, opening each (ids 1…count).
    private func open(_ count: Int, on machine: inout Machine) -> [Conn] {
        (1...count).map { n in
            guard case .open = machine.lease() else {
                Issue.record("lease \(n) did not open a connection")
                return Conn(id: n)
            }
            machine.connectionOpened()
            return Conn(id: n)
        }
    }

    /// Queues a waiter for a connection and returns its id.
    private func wait(on machine: inout Machine, deadline: Int? = nil, want: Machine.Want = .connection)
        -> Machine.WaiterID
    {
        #expect(isWait(machine.lease()))
        let id = machine.makeWaiterID()
        guard case .queued = machine.enqueue(id, want: want, deadline: deadline) else {
            Issue.record("waiter \(id) was not queued")
            return id
        }
        return id
    }

    private func isWait(_ action: Machine.LeaseAction) -> Bool {
        if case .wait = action { return true }
        return false
    }

    @Test("opens up to its capacity, then has callers wait; the first lease is alone, the next is not")
    func capacity() {
        var machine = Machine(capacity: 3)
        guard case .open(alone: true) = machine.lease() else {
            Issue.record("the first lease should open a connection, alone")
            return
        }
        machine.connectionOpened()
        guard case .open(alone: false) = machine.lease() else {
            Issue.record("the second lease should open a connection, not alone")
            return
        }
        guard case .open(alone: false) = machine.lease() else {
            Issue.record("the third lease should open a connection")
            return
        }
        #expect(machine.openCount == 3)
        #expect(machine.opening == 2)
        #expect(isWait(machine.lease()), "a fourth caller waits")
        machine.connectionOpened()
        machine.connectionOpened()
        #expect(isWait(machine.lease()))
        #expect(machine.openCount == 3)
        #expect(machine.inUseCount == 3)
        #expect(Machine(capacity: 0).capacity == 1, "a pool holds at least one connection")
    }

    @Test("an idle connection is reused (the most recently idle first) before a new one opens")
    func reuse() {
        var machine = Machine(capacity: 4)
        let conns = open(2, on: &machine)
        #expect(machine.release(conns[0], discard: false) == .keptIdle)
        #expect(machine.release(conns[1], discard: false) == .keptIdle)
        guard case .use(let first, alone: true) = machine.lease() else {
            Issue.record("an idle connection should be used")
            return
        }
        #expect(first == conns[1])
        guard case .use(let second, alone: false) = machine.lease() else {
            Issue.record("the other idle connection should be used")
            return
        }
        #expect(second == conns[0])
        #expect(machine.openCount == 2)
    }

    @Test("waiters are served first come, first served")
    func fifo() {
        var machine = Machine(capacity: 1)
        let conn = open(1, on: &machine)[0]
        let waiters = (0..<4).map { _ in wait(on: &machine) }
        for waiter in waiters {
            #expect(machine.release(conn, discard: false) == .handOver(to: waiter))
            #expect(machine.inUseCount == 1, "a connection handed over stays in use")
        }
        #expect(machine.release(conn, discard: false) == .keptIdle)
        #expect(machine.isDrained)
        #expect(machine.idleCount == 1)
    }

    @Test("a timeout fails exactly the waiters whose deadline passed, and names the next sweep")
    func timeouts() {
        var machine = Machine(capacity: 1)
        let conn = open(1, on: &machine)[0]
        var ids: [Machine.WaiterID] = []
        for (deadline, sweep) in [(10, 10), (5, 5), (nil, nil), (20, nil), (7, nil)] as [(Int?, Int?)] {
            #expect(isWait(machine.lease()))
            let id = machine.makeWaiterID()
            #expect(machine.enqueue(id, want: .connection, deadline: deadline) == .queued(sweepAt: sweep))
            ids.append(id)
        }
        let early = machine.timeoutsDue(4)
        #expect(early.expired.isEmpty)
        #expect(early.nextSweep == 5)
        let first = machine.timeoutsDue(7)
        #expect(first.expired == [ids[1], ids[4]], "a deadline at the sweep's time is due")
        #expect(first.nextSweep == 10)
        let second = machine.timeoutsDue(20)
        #expect(second.expired == [ids[0], ids[3]])
        #expect(second.nextSweep == nil)
        #expect(machine.waitingCount == 1)
        #expect(machine.release(conn, discard: false) == .handOver(to: ids[2]), "the waiter with no deadline is served")
        #expect(machine.openCount == 1)
    }

    @Test("a cancelled waiter leaves the queue and no connection is lost")
    func cancellation() {
        var machine = Machine(capacity: 1)
        let conn = open(1, on: &machine)[0]
        let a = wait(on: &machine)
        let b = wait(on: &machine)
        let left = machine.cancel(a)
        let leftAgain = machine.cancel(a)
        #expect(left)
        #expect(!leftAgain, "a waiter leaves once")
        #expect(machine.waitingCount == 1)
        #expect(machine.release(conn, discard: false) == .handOver(to: b))
        let bLeft = machine.cancel(b)
        #expect(!bLeft, "a waiter handed a connection is no longer queued: the caller keeps it")
        #expect(machine.release(conn, discard: false) == .keptIdle)
        #expect(machine.openCount == 1)
        #expect(machine.idleCount == 1)
        #expect(machine.isDrained)
    }

    @Test("a failed open frees its slot and wakes the first waiter to try in its place")
    func openFailure() {
        var machine = Machine(capacity: 1)
        guard case .open = machine.lease() else {
            Issue.record("the first lease should open")
            return
        }
        let waiter = wait(on: &machine)
        let later = wait(on: &machine)
        #expect(machine.connectionOpenFailed() == waiter)
        #expect(machine.openCount == 0)
        #expect(machine.waitingCount == 1)
        guard case .open(alone: true) = machine.lease() else {
            Issue.record("the woken waiter should find the slot free")
            return
        }
        #expect(machine.connectionOpenFailed() == later)
        #expect(machine.waitingCount == 0)
        #expect(machine.openCount == 0)
    }

    @Test("a failed open with nobody waiting just frees the slot")
    func openFailureAlone() {
        var machine = Machine(capacity: 2)
        guard case .open = machine.lease() else {
            Issue.record("the first lease should open")
            return
        }
        #expect(machine.connectionOpenFailed() == nil)
        #expect(machine.openCount == 0)
        #expect(machine.isDrained)
    }

    @Test("a discarded connection is closed, and its slot goes to the first waiter")
    func discard() {
        var machine = Machine(capacity: 1)
        let conn = open(1, on: &machine)[0]
        let waiter = wait(on: &machine)
        #expect(machine.release(conn, discard: true) == .close(retry: waiter))
        #expect(machine.openCount == 0)
        #expect(machine.waitingCount == 0)
        guard case .open(alone: true) = machine.lease() else {
            Issue.record("the woken waiter should open a connection in the freed slot")
            return
        }
        machine.connectionOpened()
        #expect(machine.release(Conn(id: 2), discard: true) == .close(retry: nil))
        #expect(machine.openCount == 0)
        #expect(machine.idleCount == 0)
    }

    @Test("a connection found dead at checkout frees its slot for the same caller")
    func deadAtCheckout() {
        var machine = Machine(capacity: 1)
        let conn = open(1, on: &machine)[0]
        #expect(machine.release(conn, discard: false) == .keptIdle)
        guard case .use = machine.lease() else {
            Issue.record("the idle connection should be used")
            return
        }
        machine.discardedAtCheckout()
        #expect(machine.openCount == 0)
        guard case .open(alone: true) = machine.lease() else {
            Issue.record("the caller should open a new connection")
            return
        }
    }

    @Test("close refuses leases, wakes every waiter, closes idle connections; releases after it close")
    func close() {
        var machine = Machine(capacity: 3)
        let conns = open(3, on: &machine)
        #expect(machine.release(conns[2], discard: false) == .keptIdle)
        guard case .use(let reused, _) = machine.lease() else {
            Issue.record("the idle connection should be used")
            return
        }
        #expect(reused == conns[2])
        let waiters = [wait(on: &machine), wait(on: &machine)]
        #expect(machine.release(conns[2], discard: false) == .handOver(to: waiters[0]))
        #expect(machine.release(conns[1], discard: false) == .handOver(to: waiters[1]))
        #expect(machine.release(conns[1], discard: false) == .keptIdle)
        let closing = machine.close()
        #expect(closing.waiters == [], "no waiter: the idle connection was there")
        #expect(closing.idle == [conns[1]])
        #expect(machine.isClosed)
        guard case .closed = machine.lease() else {
            Issue.record("a closed pool refuses leases")
            return
        }
        #expect(machine.enqueue(machine.makeWaiterID(), want: .connection, deadline: nil) == .retry)
        #expect(machine.release(conns[0], discard: false) == .close(retry: nil))
        #expect(machine.release(conns[2], discard: false) == .close(retry: nil))
        #expect(machine.openCount == 0)
        #expect(machine.isDrained)
    }

    @Test("close hands every queued waiter back, to find the pool closed")
    func closeWakesWaiters() {
        var machine = Machine(capacity: 1)
        let conn = open(1, on: &machine)[0]
        let waiters = [wait(on: &machine, deadline: 5), wait(on: &machine)]
        let closing = machine.close()
        #expect(closing.waiters == waiters)
        #expect(closing.idle.isEmpty)
        #expect(machine.waitingCount == 0)
        #expect(machine.timeoutsDue(10).expired.isEmpty, "a woken waiter does not time out later")
        #expect(machine.release(conn, discard: false) == .close(retry: nil))
        #expect(machine.openCount == 0)
    }

    @Test("draining refuses new leases but still hands connections to the waiters already queued")
    func draining() {
        var machine = Machine(capacity: 2)
        let conns = open(2, on: &machine)
        #expect(machine.release(conns[1], discard: false) == .keptIdle)
        guard case .use = machine.lease() else {
            Issue.record("the idle connection should be used")
            return
        }
        let waiter = wait(on: &machine)
        #expect(machine.release(conns[1], discard: false) == .handOver(to: waiter))
        #expect(machine.release(conns[0], discard: false) == .keptIdle)
        let idle = machine.beginDraining()
        #expect(idle == [conns[0]])
        #expect(machine.openCount == 1)
        #expect(!machine.isDrained)
        guard case .closed = machine.lease() else {
            Issue.record("a draining pool refuses leases")
            return
        }
        #expect(machine.release(conns[1], discard: false) == .close(retry: nil))
        #expect(machine.isDrained)
        #expect(machine.openCount == 0)
    }

    @Test("the statement loop takes the queue's head only when it is a statement")
    func statements() {
        var machine = Machine(capacity: 1)
        let conn = open(1, on: &machine)[0]
        let read = wait(on: &machine, want: .statement)
        let call = wait(on: &machine)
        let read2 = wait(on: &machine, want: .statement)
        #expect(machine.takeStatement() == read)
        #expect(machine.takeStatement() == nil, "a call waiting for a connection keeps its turn")
        #expect(machine.inUseCount == 1, "the loop's connection stays leased")
        #expect(machine.release(conn, discard: false) == .handOver(to: call))
        #expect(machine.takeStatement() == read2)
        #expect(machine.release(conn, discard: false) == .keptIdle)
        #expect(machine.isDrained)
    }

    @Test("a caller that would queue asks again when a connection or a slot freed up since its lease")
    func enqueueRace() {
        var machine = Machine(capacity: 1)
        let conn = open(1, on: &machine)[0]
        #expect(isWait(machine.lease()))
        #expect(machine.release(conn, discard: false) == .keptIdle)
        #expect(machine.enqueue(machine.makeWaiterID(), want: .connection, deadline: 3) == .retry)
        #expect(machine.waitingCount == 0)
        guard case .use = machine.lease() else {
            Issue.record("the idle connection should be used")
            return
        }
        #expect(machine.release(conn, discard: true) == .close(retry: nil))
        #expect(machine.enqueue(machine.makeWaiterID(), want: .connection, deadline: nil) == .retry)
    }

    @Test("no connection is ever handed to two holders, over a long random run of events")
    func randomizedInvariants() {
        let seed: UInt64 = 0x5EED_2026_0025
        print("PoolStateMachineTests.randomizedInvariants seed: \(String(seed, radix: 16))")
        var rng = MachineSplitMix(state: seed)
        for run in 0..<20 {
            var model = Model(capacity: 1 + Int(rng.next() % 4))
            for step in 0..<400 {
                model.step(&rng, closing: run % 4 == 3 && step == 300)
                if let broken = model.check() {
                    Issue.record("run \(run), step \(step): \(broken) (seed \(String(seed, radix: 16)))")
                    return
                }
            }
            #expect(model.events > 0)
        }
    }
}

/// A deterministic generator (SplitMix64, one of its constants differing from the shared ``SplitMix``: kept, so the
/// sequences this suite's seeds replay stay the same), so a failing sequence can be replayed from its seed.
private struct MachineSplitMix {
    var state: UInt64

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE5_E4B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// The callers around a machine, as the pool's shell would be: who holds which connection, who opens one, who waits.
private struct Model {
    var machine: Machine
    /// Holder id → the connection it holds.
    var held: [Int: Conn] = [:]
    /// Callers opening a connection in a reserved slot.
    var opening = 0
    /// Waiters queued, with their deadlines.
    var queued: [Machine.WaiterID: Int?] = [:]
    /// Waiters woken without a connection: they ask again.
    var retrying = 0
    var live: Set<Conn> = []
    var nextConn = 0
    var nextHolder = 0
    var now = 0
    var events = 0
    var violation: String?

    init(capacity: Int) { machine = Machine(capacity: capacity) }

    mutating func fail(_ message: String) { violation = violation ?? message }

    mutating func hold(_ conn: Conn) {
        if held.values.contains(conn) { fail("connection \(conn.id) handed to a second holder") }
        if !live.contains(conn) { fail("connection \(conn.id) handed out but not open") }
        nextHolder += 1
        held[nextHolder] = conn
    }

    mutating func closeConn(_ conn: Conn) {
        if live.remove(conn) == nil { fail("connection \(conn.id) closed twice") }
    }

    mutating func woken(_ id: Machine.WaiterID?) {
        guard let id else { return }
        if queued.removeValue(forKey: id) == nil { fail("waiter \(id) woken but not queued") }
        retrying += 1
    }

    mutating func lease(_ rng: inout MachineSplitMix) {
        let wasAlone = held.isEmpty && opening == 0
        switch machine.lease() {
        case .use(let conn, let alone):
            if alone != wasAlone { fail("use: alone \(alone), with \(held.count) held, \(opening) opening") }
            hold(conn)
        case .open(let alone):
            if alone != wasAlone { fail("open: alone \(alone), with \(held.count) held, \(opening) opening") }
            opening += 1
        case .wait:
            let id = machine.makeWaiterID()
            let deadline: Int? = rng.next() % 2 == 0 ? nil : now + 1 + Int(rng.next() % 20)
            let want: Machine.Want = rng.next() % 2 == 0 ? .connection : .statement
            switch machine.enqueue(id, want: want, deadline: deadline) {
            case .queued: queued[id] = deadline
            case .retry: fail("a waiter was refused just after being told to wait")
            }
        case .closed:
            if !machine.isClosed { fail("closed while open") }
        }
    }

    mutating func step(_ rng: inout MachineSplitMix, closing: Bool) {
        events += 1
        if closing {
            let action = machine.close()
            for conn in action.idle { closeConn(conn) }
            for id in action.waiters { woken(id) }
            return
        }
        switch rng.next() % 9 {
        case 0, 1:
            if retrying > 0 { retrying -= 1 }
            lease(&rng)
        case 2:
            guard opening > 0 else { return lease(&rng) }
            opening -= 1
            if rng.next() % 4 == 0 {
                woken(machine.connectionOpenFailed())
            } else {
                machine.connectionOpened()
                nextConn += 1
                let conn = Conn(id: nextConn)
                live.insert(conn)
                hold(conn)
            }
        case 3, 4, 5:
            guard !held.isEmpty else { return lease(&rng) }
            let holders = held.keys.sorted()
            let conn = held.removeValue(forKey: holders[Int(rng.next() % UInt64(holders.count))]) ?? Conn(id: -1)
            let discard = rng.next() % 6 == 0
            switch machine.release(conn, discard: discard) {
            case .handOver(let id):
                if discard { fail("a discarded connection handed over") }
                if queued.removeValue(forKey: id) == nil { fail("handed to waiter \(id), not queued") }
                hold(conn)
            case .keptIdle:
                if discard || machine.isClosed { fail("kept a connection it should close") }
            case .close(let retry):
                closeConn(conn)
                woken(retry)
            }
        case 6:
            guard let id = queued.keys.min() else { return }
            if !machine.cancel(id) { fail("a queued waiter \(id) could not cancel") }
            queued.removeValue(forKey: id)
            if machine.cancel(id) { fail("waiter \(id) cancelled twice") }
        case 7:
            now += Int(rng.next() % 8)
            let due = machine.timeoutsDue(now)
            for id in due.expired {
                guard let deadline = queued.removeValue(forKey: id) else {
                    fail("timed out waiter \(id) was not queued")
                    continue
                }
                if (deadline ?? Int.max) > now { fail("waiter \(id) timed out before its deadline") }
            }
            let left = queued.values.compactMap { $0 }
            if left.contains(where: { $0 <= now }) { fail("an expired waiter was left in the queue") }
            if due.nextSweep != left.min() { fail("next sweep \(String(describing: due.nextSweep)), not the earliest") }
        default:
            // The statement loop, holding a connection, takes queued reads: each is answered on that connection.
            guard !held.isEmpty, let id = machine.takeStatement() else { return }
            if queued.removeValue(forKey: id) == nil { fail("statement \(id) taken but not queued") }
        }
    }

    /// The first broken invariant, if any.
    func check() -> String? {
        if let violation { return violation }
        if machine.openCount > machine.capacity { return "\(machine.openCount) open, over \(machine.capacity)" }
        if machine.leased != held.count { return "\(machine.leased) leased, \(held.count) held" }
        if machine.opening != opening { return "\(machine.opening) opening, \(opening) callers opening" }
        if machine.waitingCount != queued.count { return "\(machine.waitingCount) waiting, \(queued.count) queued" }
        if machine.idleCount + held.count != live.count {
            return "\(machine.idleCount) idle + \(held.count) held, \(live.count) open"
        }
        if Set(held.values).count != held.count { return "a connection held twice" }
        // A slot freed by a failed open or a discard goes to a woken waiter, who asks again: until then, others queue.
        let free = machine.idleCount > 0 || machine.openCount < machine.capacity
        if !machine.isClosed && retrying == 0 && machine.waitingCount > 0 && free {
            return "a waiter queued while a connection or a slot is free"
        }
        return nil
    }
}
