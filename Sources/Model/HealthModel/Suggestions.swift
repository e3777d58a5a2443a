import FoundationEssentials

/// The longest word, in UTF-8 bytes, that gets a "did you mean": every candidate spelling is far shorter, and a
/// word must be within a third of its length of a candidate to be offered one, so nothing longer ever could.
package let suggestionWordLimit = 256

/// The Levenshtein distance between `a` and `b` (insertions, deletions and substitutions of characters) when it
/// is at most `limit`, else nil. Only the band of `2·limit + 1` diagonals is computed, nothing at all when the
/// lengths differ by more than `limit`, and the scan stops at the first row whose every cell exceeds `limit`;
/// `cells` counts the cells computed (at most `(2·limit + 1) · a.count`).
package func editDistance(_ a: [Character], _ b: [Character], limit: Int, cells: inout Int) -> Int? {
  guard limit >= 0, abs(a.count - b.count) <= limit else { return nil }
  if a.isEmpty || b.isEmpty { return max(a.count, b.count) }
  let over = limit + 1
  var previous = [Int](repeating: over, count: b.count + 1)
  for j in 0...min(b.count, limit) { previous[j] = j }
  var current = [Int](repeating: over, count: b.count + 1)
  for i in 1...a.count {
    let low = max(1, i - limit)
    let high = min(b.count, i + limit)
    current[low - 1] = low == 1 && i <= limit ? i : over
    var rowMinimum = current[low - 1]
    for j in low...high {
      let substitution = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)
      let value = Swift.min(substitution, previous[j] + 1, current[j - 1] + 1, over)
      current[j] = value
      rowMinimum = Swift.min(rowMinimum, value)
    }
    cells += high - low + 1
    if high < b.count { current[high + 1] = over }
    if rowMinimum > limit { return nil }
    swap(&previous, &current)
  }
  let distance = previous[b.count]
  return distance <= limit ? distance : nil
}

/// The Levenshtein distance between `a` and `b` when it is at most `limit`, else nil (see
/// ``editDistance(_:_:limit:cells:)``).
package func editDistance(_ a: String, _ b: String, limit: Int) -> Int? {
  var cells = 0
  return editDistance(Array(a), Array(b), limit: limit, cells: &cells)
}

/// Suggests the candidate nearest to `word` (case-insensitive edit distance; the first of equals in `candidates`'
/// order), when it is close enough to be a typo: within `max(2, length / 3)` edits. The one "did you mean" of every
/// command, scenario and API. Bounded work: nil at once for a word over ``suggestionWordLimit`` bytes, and each
/// candidate costs at most a band of the edit-distance table around its diagonal.
package func suggest(_ word: String, from candidates: [String]) -> String? {
  guard word.utf8.count <= suggestionWordLimit else { return nil }
  let lowered = Array(word.lowercased())
  let limit = max(2, word.count / 3)
  var best: (candidate: String, distance: Int)?
  var cells = 0
  for candidate in candidates {
    // Only a strictly nearer candidate replaces the best so far, so the band narrows as better ones are found.
    let bound = best.map { $0.distance - 1 } ?? limit
    if bound < 0 { break }
    guard let d = editDistance(lowered, Array(candidate.lowercased()), limit: bound, cells: &cells) else { continue }
    best = (candidate, d)
  }
  guard let (candidate, d) = best, d > 0 || candidate != word else { return nil }
  return candidate
}
