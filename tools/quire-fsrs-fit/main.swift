import FSRS
import Foundation

// quire-fsrs-fit: fits the 21 FSRS-6 parameters to a review log (Modules/FSRS, FSRSOptimizer) and
// reports the log loss on held-out reviews. Used by tools/bench.d/fsrs_optimizer.py to compare with
// the reference optimizer (fsrs-rs) and to time a fit.
//
//   quire-fsrs-fit --train train.csv [--test test.csv] [--out parameters.json]
//
// A log is CSV with a header and one review a line: card,day,rating (day: whole days; rating 1-4).

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("quire-fsrs-fit: \(message)\n".utf8))
    exit(2)
}

func readLog(_ path: String) -> [FSRSDayReview] {
    guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { fail("cannot read \(path)") }
    var log: [FSRSDayReview] = []
    for (number, line) in text.split(whereSeparator: \.isNewline).enumerated() where number > 0 {
        let fields = line.split(separator: ",")
        guard fields.count == 3, let day = Int(fields[1]), let value = Int(fields[2]), let rating = FSRSRating(rawValue: value) else {
            fail("\(path) line \(number + 1): expected card,day,rating (rating 1 to 4)")
        }
        log.append(FSRSDayReview(card: String(fields[0]), day: day, rating: rating))
    }
    return log
}

var arguments: [String: String] = [:]
var rest = CommandLine.arguments.dropFirst()
while let flag = rest.popFirst() {
    guard flag.hasPrefix("--"), let value = rest.popFirst() else { fail("usage: quire-fsrs-fit --train train.csv [--test test.csv] [--out parameters.json]") }
    arguments[String(flag.dropFirst(2))] = value
}
guard let trainPath = arguments["train"] else { fail("usage: quire-fsrs-fit --train train.csv [--test test.csv] [--out parameters.json]") }

let clock = ContinuousClock()
let readStart = clock.now
let train = FSRSOptimizer.sequences(from: readLog(trainPath))
let reviews = train.reduce(0) { $0 + $1.ratings.count }
let fitStart = clock.now
guard let fit = FSRSOptimizer.fit(train) else { fail("the fit was stopped") }
let fitTime = clock.now - fitStart
var report: [String: Any] = [
    "parameters": fit.parameters, "trainReviews": reviews, "trainCards": train.count, "predictedReviews": fit.predictedReviews,
    "trainLossBefore": fit.initialLoss, "trainLoss": fit.loss,
    "fitSeconds": Double(fitTime.components.seconds) + Double(fitTime.components.attoseconds) / 1e18,
    "readSeconds": Double((fitStart - readStart).components.seconds) + Double((fitStart - readStart).components.attoseconds) / 1e18,
]
if let testPath = arguments["test"] {
    let test = FSRSOptimizer.sequences(from: readLog(testPath))
    report["testLoss"] = FSRSOptimizer.logLoss(parameters: fit.parameters, sequences: test).loss
    report["testLossDefault"] = FSRSOptimizer.logLoss(parameters: FSRSScheduler.defaultParameters, sequences: test).loss
}
let json = (try? JSONSerialization.data(withJSONObject: report, options: [.prettyPrinted, .sortedKeys])) ?? Data()
if let out = arguments["out"] {
    do { try json.write(to: URL(fileURLWithPath: out)) } catch { fail("cannot write \(out): \(error)") }
}
print(String(decoding: json, as: UTF8.self))
