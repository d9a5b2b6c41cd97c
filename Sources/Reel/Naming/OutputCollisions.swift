/// Finds two outputs that would write the same file, or an output that would write an input, among the
/// outputs of one command or of every job of a batch (10,000 jobs validate in well under a second): plain
/// names meet in a dictionary; a segment pattern is matched only against the names in its own folder.
package struct OutputCollisions {
    package struct Owner {
        package var plan: Int
        /// Its place in the plan's names.
        package var slot: Int
        package var name: OutputName
        package func isSame(as other: Owner) -> Bool { plan == other.plan && slot == other.slot }
    }

    package enum Collision {
        /// Two outputs (of plans `first.plan` and `second.plan`, maybe one plan) would write the same file.
        case sameFile(first: Owner, second: Owner)
        /// An output would write the input of plan `inputOf`.
        case input(output: Owner, input: String, inputOf: Int)
    }

    package static func first(among plans: [OutputPlan]) -> Collision? {
        var literals: [String: Owner] = [:]
        var literalsByFolder: [String: [String]] = [:]
        var patterns: [(owner: Owner, pattern: NamePattern, folder: String)] = []
        for (index, plan) in plans.enumerated() {
            for (slot, name) in plan.names.enumerated() {
                let owner = Owner(plan: index, slot: slot, name: name)
                var spellings = [name.path]
                if name.writesHidden { spellings.append(PartialName.path(for: name.path)) }
                if name.isPattern {
                    let folder = SegmentNaming.hasFields(name.folder) ? "" : name.folder
                    for pattern in name.patterns { patterns.append((owner, pattern, folder)) }
                    continue
                }
                for spelling in spellings {
                    if let twin = literals[spelling] { return .sameFile(first: twin, second: owner) }
                    literals[spelling] = owner
                    literalsByFolder[name.folder, default: []].append(spelling)
                }
            }
        }
        var inputs: [String: Int] = [:]
        var inputsByFolder: [String: [String]] = [:]
        var given: [String: String] = [:]
        // Each input's spellings (as given, and through its symbolic links) once, however many jobs read it.
        var spellingsOf: [String: [String]] = [:]
        for (index, plan) in plans.enumerated() {
            for input in plan.inputs {
                if spellingsOf[input] == nil {
                    let spellings = Set([OutputName.resolved(input), OutputName.resolved(FileSystem.realPath(input) ?? input)])
                    spellingsOf[input] = spellings.sorted()
                    for spelling in spellings {
                        // Resolved already: its folder is the path up to its last slash.
                        let folder = spelling.lastIndex(of: "/").map { $0 == spelling.startIndex ? "/" : String(spelling[..<$0]) } ?? "."
                        inputsByFolder[folder, default: []].append(spelling)
                    }
                }
                for spelling in spellingsOf[input]! {
                    inputs[spelling] = inputs[spelling] ?? index
                    given[spelling] = given[spelling] ?? input
                }
            }
        }
        for (spelling, owner) in literals {
            if let inputOf = inputs[spelling] { return .input(output: owner, input: given[spelling]!, inputOf: inputOf) }
        }
        for (position, entry) in patterns.enumerated() {
            let near = entry.folder.isEmpty ? Array(literals.keys) : literalsByFolder[entry.folder] ?? []
            if let hit = near.first(where: { entry.pattern.matches($0) }), let owner = literals[hit],
               !owner.isSame(as: entry.owner) {
                return .sameFile(first: owner, second: entry.owner)
            }
            for other in patterns[..<position] where !other.owner.isSame(as: entry.owner) {
                if (other.folder.isEmpty || entry.folder.isEmpty || other.folder == entry.folder) && other.pattern.overlaps(entry.pattern) {
                    return .sameFile(first: other.owner, second: entry.owner)
                }
            }
            let nearInputs = entry.folder.isEmpty ? Array(inputs.keys) : inputsByFolder[entry.folder] ?? []
            if let hit = nearInputs.first(where: { entry.pattern.matches($0) }) {
                return .input(output: entry.owner, input: given[hit]!, inputOf: inputs[hit]!)
            }
        }
        return nil
    }
}
