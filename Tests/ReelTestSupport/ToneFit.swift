import Foundation

/// Fits a sum of sine tones to samples by least squares (each tone's sine and cosine; their frequencies are
/// known): each tone's amplitude, and what is left over. A sample lost, repeated or misplaced anywhere in the
/// signal leaves a residual far above a codec's.
public struct ToneFit {
    public let amplitudes: [Double]
    /// The root mean square of the samples minus the fitted tones.
    public let residual: Double

    public init(_ samples: [Float], sampleRate: Int, frequencies: [Double]) {
        let basis = frequencies.flatMap { frequency -> [[Double]] in
            let step = 2 * Double.pi * frequency / Double(sampleRate)
            return [samples.indices.map { sin(step * Double($0)) }, samples.indices.map { cos(step * Double($0)) }]
        }
        let size = basis.count
        // The normal equations, solved by Gaussian elimination (size is 2 per tone).
        func dot(_ a: [Double], _ b: [Double]) -> Double {
            var sum = 0.0
            for index in a.indices { sum += a[index] * b[index] }
            return sum
        }
        let values = samples.map(Double.init)
        var matrix = (0..<size).map { row in (0..<size).map { column in dot(basis[row], basis[column]) } }
        var vector = (0..<size).map { row in dot(basis[row], values) }
        for pivot in 0..<size {
            for row in (pivot + 1)..<size where matrix[pivot][pivot] != 0 {
                let factor = matrix[row][pivot] / matrix[pivot][pivot]
                for column in pivot..<size { matrix[row][column] -= factor * matrix[pivot][column] }
                vector[row] -= factor * vector[pivot]
            }
        }
        var solution = [Double](repeating: 0, count: size)
        for row in stride(from: size - 1, through: 0, by: -1) {
            var known = 0.0
            for column in (row + 1)..<size { known += matrix[row][column] * solution[column] }
            solution[row] = matrix[row][row] == 0 ? 0 : (vector[row] - known) / matrix[row][row]
        }
        amplitudes = stride(from: 0, to: size, by: 2).map { index -> Double in
            let sine: Double = solution[index], cosine: Double = solution[index + 1]
            return (sine * sine + cosine * cosine).squareRoot()
        }
        var squares = 0.0
        for index in samples.indices {
            var fitted = 0.0
            for term in 0..<size { fitted += solution[term] * basis[term][index] }
            let error = Double(samples[index]) - fitted
            squares += error * error
        }
        residual = (squares / Double(max(1, samples.count))).squareRoot()
    }
}
