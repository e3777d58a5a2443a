import Posix
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// The file a descriptor refers to (device and inode), or nil when the descriptor is not open. Other tests run in
/// parallel and may be given the same number once it is free, so "closed" means "no longer this file".
private func identity(_ fd: Int32) -> [UInt64]? {
  var info = stat()
  guard fstat(fd, &info) == 0 else { return nil }
  return [UInt64(info.st_dev), UInt64(info.st_ino)]
}

/// A fresh file in a fresh directory; returns the directory (removed by the caller) and the file's path.
private func scratchFile() throws -> (directory: String, path: String) {
  let directory = try Posix.makeTemporaryDirectory(prefix: "hp-fd")
  let path = directory + "/file"
  try Posix.writeFileAtomically(path, Array("x".utf8))
  return (directory, path)
}

/// Holds a descriptor the way JournalFile and Logger do: closed when the object goes.
private final class Holder {
  let file: FileDescriptor
  init(_ file: consuming FileDescriptor) { self.file = file }
}

@Suite("Posix: an owned file descriptor")
struct FileDescriptorTests {
  @Test func itIsClosedWhenItsScopeEnds() throws {
    let (directory, path) = try scratchFile()
    defer { Posix.removeTree(directory) }
    let raw: Int32
    let opened: [UInt64]?
    do {
      let file = try Posix.openOwned(path, O_RDONLY)
      raw = file.rawValue
      opened = identity(raw)
      #expect(opened != nil)
      #expect(try Posix.fileSize(file.rawValue) == 1, "usable while it lives")
    }
    #expect(identity(raw) != opened, "closed at the end of its scope")
  }

  @Test func anErrorThrownPastItClosesIt() throws {
    struct Deliberate: Error {}
    let (directory, path) = try scratchFile()
    defer { Posix.removeTree(directory) }
    var raw: Int32 = -1
    var opened: [UInt64]?
    func work() throws {
      let file = try Posix.openOwned(path, O_RDONLY)
      raw = file.rawValue
      opened = identity(raw)
      throw Deliberate()
    }
    #expect(throws: Deliberate.self) { try work() }
    #expect(opened != nil && identity(raw) != opened)
  }

  @Test func takeHandsTheDescriptorOverUnclosed() throws {
    let (directory, path) = try scratchFile()
    defer { Posix.removeTree(directory) }
    let file = try Posix.openOwned(path, O_RDONLY)
    let opened = identity(file.rawValue)
    let raw = file.take()
    #expect(identity(raw) == opened, "still open: the caller owns it now")
    Posix.close(raw)
    #expect(identity(raw) != opened)
  }

  @Test func anOwnerThatTookItClosesItWhenItGoes() throws {
    let (directory, path) = try scratchFile()
    defer { Posix.removeTree(directory) }
    var holder: Holder? = Holder(try Posix.openOwned(path, O_RDONLY))
    let raw = holder!.file.rawValue
    let opened = identity(raw)
    #expect(opened != nil)
    holder = nil
    #expect(identity(raw) != opened, "freed with its owner")
  }

  @Test func closeEndsItAtOnce() throws {
    let (directory, path) = try scratchFile()
    defer { Posix.removeTree(directory) }
    let file = try Posix.openOwned(path, O_RDONLY)
    let raw = file.rawValue
    let opened = identity(raw)
    file.close()
    #expect(opened != nil && identity(raw) != opened)
  }

  @Test func openingAMissingFileIsAnErrorNamingIt() throws {
    let (directory, _) = try scratchFile()
    defer { Posix.removeTree(directory) }
    let missing = directory + "/missing"
    #expect(throws: SystemError("open", missing, .noSuchFile)) { _ = try Posix.openOwned(missing, O_RDONLY) }
  }

  @Test func socketsAreOwnedToo() throws {
    // Listening, connecting and accepting hand out owned descriptors: the accepted side reads end of file once
    // the connecting side's value goes, with nobody calling close.
    let directory = try Posix.makeTemporaryDirectory(prefix: "hp-fd")
    defer { Posix.removeTree(directory) }
    let listener = try Posix.listenUnix(directory + "/socket")
    var accepted: FileDescriptor?
    do {
      let client = try Posix.connectUnix(directory + "/socket")
      #expect(identity(client.rawValue) != nil)
      #expect(Posix.waitReadable(listener.rawValue, timeoutMilliseconds: 10_000))
      accepted = try Posix.accept(listener.rawValue)
    }
    guard let server = accepted else {
      Issue.record("nothing to accept")
      return
    }
    #expect(Posix.waitReadable(server.rawValue, timeoutMilliseconds: 10_000), "the client's socket never closed")
    var byte = [UInt8](repeating: 0, count: 1)
    let result = byte.withUnsafeMutableBytes { b in
      catching { () throws(SystemError) in try Posix.read(server.rawValue, into: b) }
    }
    #expect(result == .success(.endOfFile), "the client's socket closed with its scope")
    #expect(
      throws: SystemError("bind", directory + "/socket", .addressInUse),
      "a live listener keeps its name (and the probe that found it closes)"
    ) { _ = try Posix.listenUnix(directory + "/socket") }
  }
}
