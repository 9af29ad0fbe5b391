// DeviceMonitor: lists the cameras and microphones GStreamer can open.
import CGStreamer

/// Lists capture devices through `GstDeviceMonitor` (V4L2, PipeWire, PulseAudio, ALSA...).
public enum DeviceMonitor {
    /// The cameras and/or microphones present now; `kind` `nil` lists both.
    /// Returns an empty list when there are none or GStreamer cannot start.
    public static func devices(_ kind: DeviceInfo.Kind? = nil) -> [DeviceInfo] {
        guard (try? GStreamer.initialize()) != nil, let monitor = gst_device_monitor_new() else { return [] }
        defer { gst_object_unref(UnsafeMutableRawPointer(monitor)) }
        if kind == nil || kind == .camera { cg_device_monitor_add_filter(monitor, "Video/Source") }
        if kind == nil || kind == .microphone { cg_device_monitor_add_filter(monitor, "Audio/Source") }
        // Without start(), get_devices probes each provider once.
        let list = gst_device_monitor_get_devices(monitor)
        defer { g_list_free_full(list, { gst_object_unref($0) }) }
        var devices: [DeviceInfo] = []
        var node = list
        while let current = node {
            node = current.pointee.next
            let device = current.pointee.data.assumingMemoryBound(to: GstDevice.self)
            let deviceClass = GLibString.take(gst_device_get_device_class(device)) ?? ""
            let deviceKind: DeviceInfo.Kind
            if deviceClass.contains("Video") {
                deviceKind = .camera
            } else if deviceClass.contains("Audio") {
                deviceKind = .microphone
            } else {
                continue
            }
            if let kind, kind != deviceKind { continue }
            let name = GLibString.take(gst_device_get_display_name(device)) ?? "(unnamed device)"
            var path: String?
            if let properties = gst_device_get_properties(device) {
                for key in ["api.v4l2.path", "device.path", "api.alsa.path", "object.path"] where path == nil {
                    path = GLibString.borrow(gst_structure_get_string(properties, key))
                }
                gst_structure_free(properties)
            }
            var formats: [String] = []
            if let caps = gst_device_get_caps(device) {
                for i in 0..<gst_caps_get_size(caps) {
                    if let text = GLibString.take(gst_structure_to_string(gst_caps_get_structure(caps, i))) {
                        formats.append(text)
                    }
                }
                gst_caps_unref(caps)
            }
            devices.append(
                DeviceInfo(
                    name: name, path: path, kind: deviceKind, deviceClass: deviceClass,
                    formats: formats))
        }
        return devices
    }
}
