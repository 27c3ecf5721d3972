import Dispatch
import Foundation
@_spi(Testing) import ReactiveDiagnostics
import Testing

@Suite("Threads and test identity")
struct ThreadTests {
    @Test func mainQueueIsTheQueueNotTheThread() async {
        let onMain = await withCheckedContinuation { continuation in
            DispatchQueue.main.async { continuation.resume(returning: MainQueue.isCurrent) }
        }
        #expect(onMain)
        let onGlobal = await withCheckedContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(returning: MainQueue.isCurrent) }
        }
        #expect(!onGlobal)
    }

    @Test func threadInfoDescribesTheThread() async {
        // libdispatch names its worker threads; the kernel id is what gdb and ps show.
        let worker = await withCheckedContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(returning: ThreadInfo.current) }
        }
        #expect(worker.id > 0 && !worker.isMainQueue)
        #expect(worker.name?.isEmpty == false)
        #expect(worker.description == "thread \(worker.id) '\(worker.name ?? "")' (background)")
        let main = await withCheckedContinuation { continuation in
            DispatchQueue.main.async { continuation.resume(returning: ThreadInfo.current) }
        }
        #expect(main.isMainQueue && main.id != worker.id)
        #expect(main.description.hasSuffix("(main queue)"))
    }

    @Test func threadNamesAreShownInFull() async {
        // Linux keeps 15 bytes of a thread's name; libdispatch names workers after their root
        // queue keeping the end: "com.apple.root.default-qos" would read "oot.default-qos".
        let worker = await withCheckedContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(returning: ThreadInfo.current) }
        }
        let name = worker.name ?? ""
        let cut = ThreadNames.rootQueueLabels.contains { $0 != name && $0.hasSuffix(name) }
        #expect(!cut, "'\(name)' is the end of a root queue's label, not the thread's full name")
        #expect(worker.queue == nil, "a root queue is not named as the queue")
        let label = "com.example.reactive-diagnostics.a-long-queue-label"
        let custom = await withCheckedContinuation { continuation in
            DispatchQueue(label: label).async { continuation.resume(returning: ThreadInfo.current) }
        }
        #expect(custom.queue == label)
        #expect(custom.description.contains("on queue '\(label)'"))
        if let customName = custom.name {
            #expect(
                !ThreadNames.rootQueueLabels.contains { $0 != customName && $0.hasSuffix(customName) },
                "'\(customName)' is cut")
        }
        let main = await withCheckedContinuation { continuation in
            DispatchQueue.main.async { continuation.resume(returning: ThreadInfo.current) }
        }
        #expect(main.queue == nil, "the main queue is said by (main queue)")
    }

    @Test func cutNamesAreMadeWholeFromWhatTheThreadRuns() {
        #expect(
            ThreadNames.fullName(kernel: "oot.default-qos", queueLabel: nil, foundationName: nil)
                == "com.apple.root.default-qos")
        #expect(
            ThreadNames.fullName(kernel: "-qos.overcommit", queueLabel: "com.example.feed", foundationName: nil) == nil,
            "the end of all six overcommit root queues' labels: no name, the queue says more")
        #expect(
            ThreadNames.fullName(
                kernel: "-qos.overcommit", queueLabel: "com.apple.root.utility-qos.overcommit", foundationName: nil)
                == "com.apple.root.utility-qos.overcommit")
        #expect(
            ThreadNames.fullName(
                kernel: "r-initiated-qos", queueLabel: "com.apple.root.user-initiated-qos", foundationName: nil)
                == "com.apple.root.user-initiated-qos")
        #expect(
            ThreadNames.fullName(kernel: "le.network-pool", queueLabel: nil, foundationName: "com.example.network-pool")
                == "com.example.network-pool")
        #expect(
            ThreadNames.fullName(kernel: "worker", queueLabel: "com.apple.root.default-qos", foundationName: nil)
                == "worker",
            "a name shorter than the kernel's limit was not cut")
        #expect(
            ThreadNames.fullName(kernel: "xxxxxxxxxxxxxxx", queueLabel: nil, foundationName: nil) == "xxxxxxxxxxxxxxx")
        #expect(ThreadNames.queue(label: "com.apple.root.default-qos", threadName: "x") == nil)
        #expect(ThreadNames.queue(label: "com.apple.main-thread", threadName: nil) == nil)
        #expect(ThreadNames.queue(label: "feed", threadName: "worker") == "feed")
    }

    @Test func testIdentityResolvesThreadLocalThenTaskLocalThenSerial() {
        let task = TestIdentity(name: "ThreadTests.task")
        let thread = TestIdentity(name: "ThreadTests.thread")
        #expect(TestIdentity(name: "ThreadTests.task") == task)
        #expect(task.name == "ThreadTests.task" && TestIdentity.none.name == nil)
        TestIdentity.$current.withValue(task) {
            #expect(TestIdentity.contextual == task)
            TestIdentity.withThreadTest(thread) {
                #expect(TestIdentity.contextual == thread)
            }
            #expect(TestIdentity.contextual == task)
        }
    }
}
