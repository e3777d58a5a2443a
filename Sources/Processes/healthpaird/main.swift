import Daemon
import Posix

Posix.exitImmediately(DaemonMain.main(Array(CommandLine.arguments.dropFirst())))
