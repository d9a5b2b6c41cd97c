import FFmpegCore
import FoundationEssentials
import Glibc
import SystemSupport

/// The outputs added to a session (AVCaptureSession's addOutput): photos, live views and movies, before the
/// start or while it runs.
extension CaptureSession {
    /// Adds a photo output: from the next `start` on (or at once, while recording), `photo.capture(to:)`
    /// takes the next picture. AVCaptureSession's addOutput for an AVCapturePhotoOutput.
    public func addOutput(_ photo: PhotoOutput) {
        let requests = shared.withLock { shared in
            shared.photoOutputs.append(photo)
            return shared.photoRequests
        }
        if let requests { photo.attach(requests) }
    }

    /// Adds a live view (see PreviewOutput): from the next `start` on, or at once while recording. Its
    /// `pictures` stream ends when the session does.
    public func addOutput(_ preview: PreviewOutput) {
        let running = shared.withLock { shared in
            shared.previewOutputs.append(preview)
            return shared.running
        }
        if let running {
            running.buffer.addSlots(.video, count: 1)
            running.engine.add(PreviewFeed(output: preview, rendition: 0, rotation: running.context.rotation, buffer: running.buffer,
                                           sessionStart: running.context.sessionStart))
        }
    }

    /// Adds a movie (AVCaptureSession's addOutput for an AVCaptureMovieFileOutput). Before `start` (or after
    /// the session finished) it waits for the next start and begins with it, on the same first picture as the
    /// session's own movies; while the session runs it starts with the next picture (see MovieOutput).
    /// Its path is checked when it starts: while running, this throws `ReelError.invalidInput` before
    /// writing anything when the path or limits cannot work (the same checks as the session's own movies);
    /// before a start, that start throws.
    public func addOutput(_ movie: MovieOutput) throws {
        let runningNow = try self.shared.withLock { shared -> Running? in
            switch shared.phase {
            case .recording(let running): return running
            case .starting:
                throw ReelError.invalidInput("the session is still opening its inputs: add the movie before start, or once it has started")
            case .ready, .finished:
                shared.pendingMovies.append(movie)
                return nil
            }
        }
        guard let shared = runningNow, !movie.wasStoppedBeforeStart else { return }
        let engine = shared.engine
        let path = URL(fileURLWithPath: movie.outputPath).path
        // The new movie's files against each other's, the session's inputs and what is there.
        let configuration = shared.context.configuration
        var plan = shared.plan, own = OutputPlan()
        own.addMovie(path, segmentation: movie.segmentation, writesHidden: configuration.writingPath != configuration.outputPath,
                     role: "new movie")
        own.inputs = plan.inputs
        try own.check(overwrite: configuration.overwrite)
        plan.names += own.names
        try plan.checkNames()
        var setup = try shared.context.movie(path: path, preset: movie.preset, limits: movie.limits,
                                             segmentation: movie.segmentation, joinsRunningSession: true)
        // The new movie holds pictures of its own (queued, held, being encoded), or takes them from the
        // encoder of its preset, which holds them (a new one is added to the session first).
        var slots = shared.paced ? MovieRecorder.livePictureQueue + 2 : 2
        if SharedVideoEncoders.subscribes(setup) {
            slots = 0
            if let encoder = shared.context.sharedEncoders.subscribe(&setup, buffer: shared.buffer, paced: shared.paced) {
                let encoderSlots = SharedVideoEncoder.pictureSlots(paced: shared.paced)
                shared.buffer.addSlots(.video, count: encoderSlots)
                _ = engine.add(encoder, slots: encoderSlots)
            }
        }
        shared.buffer.addSlots(.video, count: slots)
        let recorder = MovieRecorder(setup: setup, buffer: shared.buffer, paced: shared.paced,
                                     readerDrops: engine.readerDropCount, progress: { _ in })
        // Attached first: a pause asked of the movie before applies from its first picture.
        movie.attach(recorder)
        guard engine.add(recorder, slots: slots) else {
            throw ReelError.invalidInput("the session has ended: start it again before adding a movie")
        }
        self.shared.withLock { shared in
            guard case .recording(var running) = shared.phase, running.engine === engine else { return }
            running.outputs.append(path)
            running.plan = plan
            shared.phase = .recording(running)
        }
    }
}
