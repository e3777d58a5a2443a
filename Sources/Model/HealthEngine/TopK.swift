extension Array {
  /// The first `k` elements in the order `areInIncreasingOrder` defines, sorted — without sorting the whole array:
  /// a bounded max-heap of the best `k` seen so far, O(n log k). Ties keep no particular order, so callers give a
  /// total order.
  package func smallest(_ k: Int, by areInIncreasingOrder: (Element, Element) -> Bool) -> [Element] {
    smallest(k, key: nil, by: areInIncreasingOrder)
  }

  /// ``smallest(_:by:)`` with a numeric `key` that the order sorts by first (a larger key is always later): most
  /// elements are then rejected by comparing one number with the current k-th best, without calling the comparator.
  package func smallest(_ k: Int, key: ((Element) -> Double)?, by areInIncreasingOrder: (Element, Element) -> Bool)
    -> [Element]
  {
    guard k > 0 else { return [] }
    guard k < count else { return sorted(by: areInIncreasingOrder) }
    // heap[0] is the worst of the best k.
    var heap: [Element] = []
    heap.reserveCapacity(k)
    func siftUp(_ start: Int) {
      var child = start
      while child > 0 {
        let parent = (child - 1) / 2
        guard areInIncreasingOrder(heap[parent], heap[child]) else { return }
        heap.swapAt(parent, child)
        child = parent
      }
    }
    func siftDown() {
      var parent = 0
      while true {
        let left = 2 * parent + 1
        guard left < heap.count else { return }
        var worst = left
        if left + 1 < heap.count && areInIncreasingOrder(heap[left], heap[left + 1]) { worst = left + 1 }
        guard areInIncreasingOrder(heap[parent], heap[worst]) else { return }
        heap.swapAt(parent, worst)
        parent = worst
      }
    }
    var worstKey = Double.infinity
    for element in self {
      if heap.count < k {
        heap.append(element)
        siftUp(heap.count - 1)
        if heap.count == k, let key { worstKey = key(heap[0]) }
      } else {
        if let key, key(element) > worstKey { continue }
        if areInIncreasingOrder(element, heap[0]) {
          heap[0] = element
          siftDown()
          if let key { worstKey = key(heap[0]) }
        }
      }
    }
    return heap.sorted(by: areInIncreasingOrder)
  }
}
