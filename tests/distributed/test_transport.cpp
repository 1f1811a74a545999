// The in-process transport: ordering per (sender, tag), exact bytes, turns, and abort.
#include <gtest/gtest.h>

#include <thread>

#include "concord/distributed/in_process_transport.hpp"

using namespace concord;

TEST(InProcessTransport, DeliversMessagesInOrderPerSenderAndTag) {
    InProcessNetwork net(2);
    std::thread worker([&] {
        InProcessTransport& t = net.endpoint(1);
        t.enter();
        for (int i = 0; i < 3; ++i) {
            MessageWriter w;
            w.put(i).put(0.1 * i);
            t.send(0, Tag::Report, w.take());
        }
        // Reply to the controller's command with its payload doubled.
        const Bytes b = t.receive(0, Tag::Command);
        MessageReader r(b);
        MessageWriter w;
        w.put(2.0 * r.get<double>());
        t.send(0, Tag::Result, w.take());
        t.leave();
    });
    InProcessTransport& c = net.endpoint(0);
    c.enter();
    MessageWriter w;
    w.put(std::nextafter(1.0, 2.0));
    c.send(1, Tag::Command, w.take());
    for (int i = 0; i < 3; ++i) {
        const Bytes b = c.receive(1, Tag::Report);
        MessageReader r(b);
        EXPECT_EQ(r.get<int>(), i);
        EXPECT_EQ(r.get<double>(), 0.1 * i);  // bit-exact
        EXPECT_TRUE(r.done());
    }
    const Bytes b = c.receive(1, Tag::Result);
    MessageReader r(b);
    EXPECT_EQ(r.get<double>(), 2.0 * std::nextafter(1.0, 2.0));
    c.leave();
    worker.join();
    EXPECT_EQ(c.num_workers(), 2);
}

TEST(InProcessTransport, AbortWakesWaitingReceivers) {
    InProcessNetwork net(1);
    std::thread waiter([&] {
        InProcessTransport& t = net.endpoint(1);
        t.enter();
        EXPECT_THROW(t.receive(0, Tag::Command), std::runtime_error);
        t.leave();
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    net.abort("controller failed");
    waiter.join();
}

TEST(Message, RejectsTruncatedBuffers) {
    MessageWriter w;
    w.put(std::int32_t(3));
    const Bytes b = w.take();
    MessageReader r(b);
    EXPECT_THROW(r.get<double>(), std::runtime_error);
}
