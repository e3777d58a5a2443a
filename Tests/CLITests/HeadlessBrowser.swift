import Foundation

@testable import Posix

#if canImport(Glibc)
  import Glibc
#endif

/// Why the browser did not answer as expected.
enum BrowserError: Error, CustomStringConvertible {
  /// No Chromium executable was found.
  case notFound(searched: [String])
  /// Nothing came before the deadline.
  case timeout(waitingFor: String, seconds: Double)
  /// The browser closed its end of the pipe (it exited); its standard error is in `log`.
  case exited(waitingFor: String, log: String)
  /// The browser answered a command with an error.
  case command(method: String, error: String)
  /// A message was not the JSON the protocol promises.
  case malformed(String)
  /// A system call failed.
  case system(SystemError)

  var description: String {
    switch self {
    case .notFound(let searched): "no Chromium found (looked for \(searched.joined(separator: ", ")))"
    case .timeout(let what, let seconds): "no \(what) from the browser within \(seconds) s"
    case .exited(let what, let log): "the browser exited while waiting for \(what); its stderr ends:\n\(log)"
    case .command(let method, let error): "the browser refused \(method): \(error)"
    case .malformed(let text): "malformed DevTools message: \(text.prefix(200))"
    case .system(let error): "\(error)"
    }
  }
}

/// A headless Chromium driven over the DevTools protocol on a pipe (`--remote-debugging-pipe`: it reads commands
/// on its descriptor 3 and writes answers and events on 4, each a JSON text ended by a NUL byte), attached to one
/// page. Every event the page's session sends is kept in ``events`` (console calls, exceptions, log entries,
/// network requests).
final class HeadlessBrowser {
  /// The browser's process id (it leads its own process group).
  let pid: pid_t
  private let commands: Int32
  private let answers: Int32
  private let stderrPath: String
  private var buffer: [UInt8] = []
  private var nextID = 1
  private var session: String?
  private var exitStatus: Posix.ExitStatus?
  /// Every event received, in order: (method, params).
  private(set) var events: [(method: String, params: [String: Any])] = []

  /// The Chromium executable: `$CHROMIUM`, else `chromium` or `chromium-browser` on `$PATH`.
  static func locate() throws(BrowserError) -> String {
    var searched: [String] = []
    if let explicit = Posix.environment("CHROMIUM") {
      if Posix.exists(explicit) { return explicit }
      searched.append(explicit)
    }
    for name in ["chromium", "chromium-browser"] {
      for dir in (Posix.environment("PATH") ?? "").split(separator: ":") where Posix.exists("\(dir)/\(name)") {
        return "\(dir)/\(name)"
      }
      searched.append("\(name) on $PATH")
    }
    throw .notFound(searched: searched)
  }

  /// Starts the browser with a fresh profile in `workDirectory` and attaches to a new blank page of
  /// `width` × `height` CSS pixels.
  init(executable: String, workDirectory: String, width: Int, height: Int) throws(BrowserError) {
    stderrPath = workDirectory + "/chromium.stderr"
    do {
      let toBrowser = try Posix.pipe()
      let fromBrowser = try Posix.pipe()
      let errFD = try Posix.open(stderrPath, O_WRONLY | O_CREAT | O_TRUNC, mode: 0o644)
      let null = Posix.devNull()
      defer {
        Posix.close(errFD)
        Posix.close(null)
        Posix.close(toBrowser.read)
        Posix.close(fromBrowser.write)
      }
      // No sandbox: CI runs as root, where Chromium refuses to start with it; the page is our own local file.
      let arguments = [
        "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--remote-debugging-pipe",
        "--no-first-run", "--no-default-browser-check", "--disable-extensions", "--disable-background-networking",
        "--disable-sync", "--disable-component-update", "--hide-scrollbars", "--mute-audio",
        "--user-data-dir=\(workDirectory)/profile", "about:blank",
      ]
      pid = try Posix.spawn(
        executable, arguments, stdout: null, stderr: errFD, stdin: null,
        descriptors: [3: toBrowser.read, 4: fromBrowser.write], newProcessGroup: true)
      commands = toBrowser.write
      answers = fromBrowser.read
    } catch {
      throw .system(error)
    }
    let target = try call("Target.createTarget", ["url": "about:blank"], browserLevel: true)
    guard let targetID = target["targetId"] as? String else { throw .malformed("createTarget: \(target)") }
    let attached = try call("Target.attachToTarget", ["targetId": targetID, "flatten": true], browserLevel: true)
    guard let session = attached["sessionId"] as? String else { throw .malformed("attachToTarget: \(attached)") }
    self.session = session
    for domain in ["Runtime", "Log", "Page", "Network"] { _ = try call("\(domain).enable") }
    _ = try call(
      "Emulation.setDeviceMetricsOverride", ["width": width, "height": height, "deviceScaleFactor": 1, "mobile": false])
  }

  deinit { close() }

  /// Loads `url` and waits for its load event.
  func navigate(_ url: String, timeout: Double = 30) throws(BrowserError) {
    let start = events.count
    _ = try call("Page.navigate", ["url": url])
    try waitForEvent("Page.loadEventFired", after: start, timeout: timeout)
  }

  /// Evaluates a JavaScript expression in the page and returns its value (awaiting a promise).
  func evaluate(_ expression: String) throws(BrowserError) -> Any? {
    let reply = try call(
      "Runtime.evaluate", ["expression": expression, "returnByValue": true, "awaitPromise": true])
    if let exception = reply["exceptionDetails"] as? [String: Any] {
      throw .command(method: "Runtime.evaluate(\(expression.prefix(80)))", error: "\(exception)")
    }
    return (reply["result"] as? [String: Any])?["value"]
  }

  /// A PNG of the page's region `clip` (x, y, width, height in page pixels), beyond the viewport if need be.
  func screenshot(clip: (x: Double, y: Double, width: Double, height: Double)) throws(BrowserError) -> [UInt8] {
    let reply = try call(
      "Page.captureScreenshot",
      [
        "format": "png", "captureBeyondViewport": true,
        "clip": ["x": clip.x, "y": clip.y, "width": clip.width, "height": clip.height, "scale": 1],
      ])
    guard let text = reply["data"] as? String, let data = Data(base64Encoded: text) else {
      throw .malformed("captureScreenshot without data")
    }
    return [UInt8](data)
  }

  /// The console errors, uncaught exceptions and error log entries the page produced, one line each.
  var errors: [String] {
    events.compactMap { event in
      switch event.method {
      case "Runtime.exceptionThrown":
        let details = event.params["exceptionDetails"] as? [String: Any]
        return "exception: \((details?["exception"] as? [String: Any])?["description"] ?? details?["text"] ?? "?")"
      case "Runtime.consoleAPICalled":
        guard let type = event.params["type"] as? String, type == "error" || type == "assert" else { return nil }
        let args = (event.params["args"] as? [[String: Any]] ?? []).map { "\($0["value"] ?? $0["description"] ?? "")" }
        return "console.\(type): \(args.joined(separator: " "))"
      case "Log.entryAdded":
        guard let entry = event.params["entry"] as? [String: Any], entry["level"] as? String == "error" else {
          return nil
        }
        return "log: \(entry["text"] ?? "?") (\(entry["url"] ?? ""))"
      default:
        return nil
      }
    }
  }

  /// The URLs the page requested.
  var requests: [String] {
    events.filter { $0.method == "Network.requestWillBeSent" }.compactMap {
      ($0.params["request"] as? [String: Any])?["url"] as? String
    }
  }

  /// Asks the browser to close, then makes sure its whole process group is gone.
  func close() {
    guard exitStatus == nil else { return }
    if (try? call("Browser.close", browserLevel: true, timeout: 5)) == nil
      || !Posix.waitForExit(pid, timeoutMilliseconds: 5000)
    {
      try? Posix.kill(-pid, SIGKILL)
    }
    exitStatus = (try? Posix.wait(pid, block: true)) ?? .exited(-1)
    Posix.close(commands)
    Posix.close(answers)
  }

  // MARK: - Protocol

  private func call(
    _ method: String, _ params: [String: Any] = [:], browserLevel: Bool = false, timeout: Double = 30
  ) throws(BrowserError) -> [String: Any] {
    let id = nextID
    nextID += 1
    var message: [String: Any] = ["id": id, "method": method, "params": params]
    if !browserLevel, let session { message["sessionId"] = session }
    guard let json = try? JSONSerialization.data(withJSONObject: message) else { throw .malformed("\(message)") }
    do {
      try ([UInt8](json) + [0]).withUnsafeBytes { bytes in
        try catching { () throws(SystemError) in try Posix.writeAll(commands, bytes, what: "the browser's pipe") }.get()
      }
    } catch let error as SystemError {
      throw .system(error)
    } catch {
      throw .malformed("\(error)")
    }
    let deadline = Posix.monotonicNanoseconds() + UInt64(timeout * 1e9)
    while true {
      let reply = try nextMessage(waitingFor: method, deadline: deadline, timeout: timeout)
      if reply["id"] as? Int == id {
        if let error = reply["error"] as? [String: Any] { throw .command(method: method, error: "\(error)") }
        return reply["result"] as? [String: Any] ?? [:]
      }
      keepEvent(reply)
    }
  }

  private func waitForEvent(_ method: String, after start: Int, timeout: Double) throws(BrowserError) {
    if events[start...].contains(where: { $0.method == method }) { return }
    let deadline = Posix.monotonicNanoseconds() + UInt64(timeout * 1e9)
    while true {
      let message = try nextMessage(waitingFor: method, deadline: deadline, timeout: timeout)
      keepEvent(message)
      if message["method"] as? String == method { return }
    }
  }

  private func keepEvent(_ message: [String: Any]) {
    guard let method = message["method"] as? String else { return }
    events.append((method, message["params"] as? [String: Any] ?? [:]))
  }

  private func nextMessage(waitingFor what: String, deadline: UInt64, timeout: Double) throws(BrowserError) -> [String:
    Any]
  {
    var chunk = [UInt8](repeating: 0, count: 1 << 16)
    while true {
      if let end = buffer.firstIndex(of: 0) {
        let body = Array(buffer[..<end])
        buffer.removeSubrange(...end)
        guard let object = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any] else {
          throw .malformed(String(decoding: body, as: UTF8.self))
        }
        return object
      }
      let now = Posix.monotonicNanoseconds()
      guard now < deadline else { throw .timeout(waitingFor: what, seconds: timeout) }
      guard Posix.waitReadable(answers, timeoutMilliseconds: Int32((deadline - now) / 1_000_000) + 1) else { continue }
      let result = chunk.withUnsafeMutableBytes { raw in
        catching { () throws(SystemError) in try Posix.read(answers, into: raw) }
      }
      switch result {
      case .success(.bytes(let n)): buffer += chunk[0..<n]
      case .success(.wouldBlock): continue
      case .success(.endOfFile): throw .exited(waitingFor: what, log: stderrTail())
      case .failure(let error): throw .system(error)
      }
    }
  }

  private func stderrTail() -> String {
    let text = String(decoding: (try? Posix.readFile(stderrPath)) ?? [], as: UTF8.self)
    return text.split(separator: "\n").suffix(15).joined(separator: "\n")
  }
}
