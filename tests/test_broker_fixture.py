"""The test broker is a real mosquitto that survives a stop/start on the same port."""

import paho.mqtt.client as mqtt

from tests.support.broker import wait_for_port


def test_mosquitto_accepts_mqtt_and_restarts_on_same_port(own_mosquitto):
    client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="probe")
    assert client.connect(own_mosquitto.host, own_mosquitto.port) == mqtt.MQTT_ERR_SUCCESS
    client.disconnect()
    port = own_mosquitto.port
    own_mosquitto.stop()
    own_mosquitto.start()
    assert own_mosquitto.port == port
    wait_for_port(own_mosquitto.host, port)
