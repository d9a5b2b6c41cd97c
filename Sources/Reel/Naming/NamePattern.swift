/// The set of paths one output name stands for, as a sequence of byte classes: a plain path is its bytes;
/// a segment pattern's `{index}` is three or more digits, `{date}` is `dddd-dd-dd` and `{time}` `dd-dd-dd`
/// (SegmentNaming fills them so). Two patterns overlap when some path is in both: that is what tells a
/// command, before it writes anything, that two of its outputs (a movie's segments and a tier, two jobs'
/// outputs) or an output and an input would meet. `{index}` is taken as any run of three or more digits,
/// a little more than SegmentNaming makes (it never writes 0001), so a collision is never missed. Pure.
struct NamePattern: Sendable, Equatable {
    enum Unit: Sendable, Equatable {
        case byte(UInt8)
        case digit
    }

    struct Atom: Sendable, Equatable {
        var unit: Unit
        /// At least this many (exactly, unless `unbounded`).
        var count: Int
        var unbounded: Bool
    }

    let atoms: [Atom]

    /// A plain path: every byte stands for itself.
    init(literal path: String) {
        atoms = path.utf8.map { Atom(unit: .byte($0), count: 1, unbounded: false) }
    }

    /// A segment template (SegmentNaming.template): its fields become digit classes.
    init(template: String) {
        var atoms: [Atom] = []
        var rest = Substring(template)
        let digit = Atom(unit: .digit, count: 1, unbounded: false)
        let dash = Atom(unit: .byte(UInt8(ascii: "-")), count: 1, unbounded: false)
        let digits = { (count: Int) in Array(repeating: digit, count: count) }
        while !rest.isEmpty {
            if rest.hasPrefix(SegmentNaming.indexField) {
                atoms.append(Atom(unit: .digit, count: 3, unbounded: true))
                rest = rest.dropFirst(SegmentNaming.indexField.count)
            } else if rest.hasPrefix(SegmentNaming.dateField) {
                atoms += digits(4) + [dash] + digits(2) + [dash] + digits(2)
                rest = rest.dropFirst(SegmentNaming.dateField.count)
            } else if rest.hasPrefix(SegmentNaming.timeField) {
                atoms += digits(2) + [dash] + digits(2) + [dash] + digits(2)
                rest = rest.dropFirst(SegmentNaming.timeField.count)
            } else {
                let character = rest.removeFirst()
                atoms += character.utf8.map { Atom(unit: .byte($0), count: 1, unbounded: false) }
            }
        }
        self.atoms = atoms
    }

    /// Whether `path` is one of the paths this pattern stands for. The bytes before the first field and
    /// after the last must be the path's own (a quick no for most names in a folder).
    func matches(_ path: String) -> Bool {
        let bytes = Array(path.utf8)
        let head = atoms.prefix { if case .byte = $0.unit { true } else { false } }
        let tail = atoms.reversed().prefix { if case .byte = $0.unit { true } else { false } }
        guard head.count + tail.count <= bytes.count || head.count == atoms.count else { return false }
        for (atom, byte) in zip(head, bytes) where atom.unit != .byte(byte) { return false }
        for (atom, byte) in zip(tail, bytes.reversed()) where atom.unit != .byte(byte) { return false }
        return overlaps(NamePattern(literal: path))
    }

    /// Whether some path is in both patterns: a search over pairs of positions, one in each pattern (a
    /// position is an atom and how many of its units are consumed, counted up to its minimum when unbounded).
    func overlaps(_ other: NamePattern) -> Bool {
        struct Position: Hashable { var atom: Int, used: Int }
        struct State: Hashable { var first: Position, second: Position }
        func skips(_ position: Position, in atoms: [Atom]) -> Position? {
            guard position.atom < atoms.count, position.used >= atoms[position.atom].count else { return nil }
            return Position(atom: position.atom + 1, used: 0)
        }
        func consumes(_ position: Position, in atoms: [Atom]) -> (Unit, Position)? {
            guard position.atom < atoms.count else { return nil }
            let atom = atoms[position.atom]
            if atom.unbounded { return (atom.unit, Position(atom: position.atom, used: min(position.used + 1, atom.count))) }
            guard position.used < atom.count else { return nil }
            return (atom.unit, Position(atom: position.atom, used: position.used + 1))
        }
        func meet(_ first: Unit, _ second: Unit) -> Bool {
            switch (first, second) {
            case (.digit, .digit): return true
            case (.digit, .byte(let byte)), (.byte(let byte), .digit): return (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
            case (.byte(let one), .byte(let two)): return one == two
            }
        }
        var seen: Set<State> = []
        var pending = [State(first: Position(atom: 0, used: 0), second: Position(atom: 0, used: 0))]
        while let state = pending.popLast() {
            guard seen.insert(state).inserted else { continue }
            let firstDone = state.first.atom == atoms.count, secondDone = state.second.atom == other.atoms.count
            if firstDone && secondDone { return true }
            if let next = skips(state.first, in: atoms) { pending.append(State(first: next, second: state.second)) }
            if let next = skips(state.second, in: other.atoms) { pending.append(State(first: state.first, second: next)) }
            if let (unit, first) = consumes(state.first, in: atoms), let (otherUnit, second) = consumes(state.second, in: other.atoms),
               meet(unit, otherUnit) {
                pending.append(State(first: first, second: second))
            }
        }
        return false
    }
}
