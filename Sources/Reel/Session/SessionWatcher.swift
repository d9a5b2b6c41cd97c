/// An output that only watches the session on its thread (the level meter's feed, the alarms', the triggers'):
/// a companion that never ends the session, has no thread to start and is never done.
protocol SessionWatcher: SessionOutput {}

extension SessionWatcher {
    var role: SessionOutputRole { .companion }
    func start() {}
    var isDone: Bool { false }
}
