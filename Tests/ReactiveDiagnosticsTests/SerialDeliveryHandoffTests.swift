import Testing
@testable import ReactiveDiagnostics

/// The hand-over of a concurrent delivery's two sides, step by step on one thread: the
/// interleavings the stress tests reach only by chance are written out here.
@Suite("Serial delivery hand-over")
struct SerialDeliveryHandoffTests {
    /// A thread that is not the test's (only its token is needed).
    let elsewhere: UInt64 = 0xA11CE

    @Test func aRequestMadeAfterTheOwnerLetGoIsWithdrawn() {
        let engine = makeEngine()
        let serial = SerialDelivery(probes: 0)
        let claimed = serial.claim(elsewhere)
        #expect(claimed == 0)
        // The colliding thread saw the owner, but the owner ends its delivery (without seeing a
        // request) before the request is made: it will never answer.
        serial.release(afterValue: false, recorder: engine)
        let requested = serial.collided(with: elsewhere)
        #expect(requested)
        serial.post(finding: nil, owner: elsewhere, recorder: engine)
        // Withdrawn: the next collision can ask its owner (before, the request stayed in flight
        // forever, and a later delivery of the first owner answered it with the wrong stack).
        let next = serial.claim(elsewhere + 1)
        let askedAgain = serial.collided(with: elsewhere + 1)
        #expect(next == 0 && askedAgain)
    }

    @Test func aRequestToAnOwnerStillDeliveringWaitsForItsAnswer() {
        let engine = makeEngine()
        let serial = SerialDelivery(probes: 0)
        let claimed = serial.claim(elsewhere)
        let requested = serial.collided(with: elsewhere)
        #expect(claimed == 0 && requested)
        serial.post(finding: nil, owner: elsewhere, recorder: engine)
        // The owner still delivers: the request stays for it to answer, so no other can be made.
        let askedAgain = serial.collided(with: elsewhere)
        #expect(!askedAgain)
    }
}
