import FoundationEssentials

/// The Levenshtein distance between two strings (insertions, deletions and substitutions of characters).
package func editDistance(_ a: String, _ b: String) -> Int {
  let a = Array(a)
  let b = Array(b)
  if a.isEmpty { return b.count }
  var previous = Array(0...b.count)
  for (i, ca) in a.enumerated() {
    var current = [i + 1] + [Int](repeating: 0, count: b.count)
    for (j, cb) in b.enumerated() {
      current[j + 1] = Swift.min(previous[j + 1] + 1, current[j] + 1, previous[j] + (ca == cb ? 0 : 1))
    }
    previous = current
  }
  return previous[b.count]
}

/// Suggests the candidate nearest to `word` (case-insensitive edit distance; the first of equals in `candidates`'
/// order), when it is close enough to be a typo. The one "did you mean" of every command, scenario and API.
package func suggest(_ word: String, from candidates: [String]) -> String? {
  let lowered = word.lowercased()
  var best: (String, Int)?
  for candidate in candidates {
    let d = editDistance(lowered, candidate.lowercased())
    if best == nil || d < best!.1 { best = (candidate, d) }
  }
  guard let (candidate, d) = best, d > 0 || candidate != word, d <= max(2, word.count / 3) else { return nil }
  return candidate
}
