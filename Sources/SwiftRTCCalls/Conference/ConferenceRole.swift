/// How a bot takes part in a conference room (the SDKs' `conferenceRole`).
public enum ConferenceRole: String, Sendable, Hashable {
    /// Sends its audio and video into the room and receives the others'.
    case publisher
    /// Only receives: it joins to hear of the publishers, and never publishes.
    case listener
}
