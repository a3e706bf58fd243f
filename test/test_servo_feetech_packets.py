"""Tests of the Feetech packet encoders and decoders against bytes computed by hand.

Checksums: ``~(ID + LEN + INSTR + PARAMS) & 0xFF``, summed in the comments.
"""

import pytest

from two_bone_ik.servo import feetech_packets as fp
from two_bone_ik.servo.controller import GarbledReply


def test_instruction_packets():
    # PING ID 1: 01 + 02 + 01 = 0x04 -> FB (the manual's example).
    assert fp.ping(1) == bytes.fromhex('ff ff 01 02 01 fb')
    # READ ID 1, Present Position (0x38), 2 bytes: 01 + 04 + 02 + 38 + 02 = 0x41 -> BE.
    assert fp.read(1, 56, 2) == bytes.fromhex('ff ff 01 04 02 38 02 be')
    # WRITE ID 1, Goal Position (0x2A) = 2048 little-endian (00 08):
    # 01 + 05 + 03 + 2A + 00 + 08 = 0x3B -> C4.
    assert fp.write(1, 42, b'\x00\x08') == bytes.fromhex('ff ff 01 05 03 2a 00 08 c4')
    # SYNC_READ of 56, 2 bytes, IDs 1 and 2: FE + 06 + 82 + 38 + 02 + 01 + 02 = 0x1C3 -> 3C.
    assert fp.sync_read(56, 2, [1, 2]) == bytes.fromhex('ff ff fe 06 82 38 02 01 02 3c')
    # SYNC_WRITE of 42, 2 bytes: ID 1 2048, ID 2 1024:
    # FE + 0A + 83 + 2A + 02 + 01 + 00 + 08 + 02 + 00 + 04 = 0x1C6 -> 39.
    assert fp.sync_write(42, 2, {1: b'\x00\x08', 2: b'\x00\x04'}) == bytes.fromhex(
        'ff ff fe 0a 83 2a 02 01 00 08 02 00 04 39')
    with pytest.raises(ValueError, match='ID 2: 1 bytes of data, expected 2'):
        fp.sync_write(42, 2, {2: b'\x00'})


def test_values_little_and_big_endian_and_sign_magnitude():
    assert fp.encode_word(2048, big_endian=False, sign_bit=15) == b'\x00\x08'
    assert fp.encode_word(2048, big_endian=True) == b'\x08\x00'
    # -100: magnitude 0x0064 with bit 15 set = 0x8064 (not two's complement, 0xFF9C).
    assert fp.encode_word(-100, big_endian=False, sign_bit=15) == b'\x64\x80'
    assert fp.encode_word(-100, big_endian=True, sign_bit=15) == b'\x80\x64'
    assert fp.decode_word(b'\x64\x80', big_endian=False, sign_bit=15) == -100
    assert fp.decode_word(b'\x80\x64', big_endian=True, sign_bit=15) == -100
    assert fp.decode_word(b'\x64\x80', big_endian=False) == 0x8064
    for value in (0, 1, 4095, 32767, -1, -32767):
        word = fp.encode_word(value, big_endian=False, sign_bit=15)
        assert fp.decode_word(word, big_endian=False, sign_bit=15) == value
    with pytest.raises(ValueError, match='32768 does not fit'):
        fp.encode_word(32768, big_endian=False, sign_bit=15)
    with pytest.raises(ValueError, match='-1 is not an unsigned'):
        fp.encode_word(-1, big_endian=True)


# Status packets of IDs 1 and 2, Present Position 2048 and 1024, no error:
# 01 + 04 + 00 + 00 + 08 = 0x0D -> F2; 02 + 04 + 00 + 00 + 04 = 0x0A -> F5.
ONE = bytes.fromhex('ff ff 01 04 00 00 08 f2')
TWO = bytes.fromhex('ff ff 02 04 00 00 04 f5')


def test_status_packets_parsed_in_turn_with_silent_servos_absent():
    assert fp.parse_statuses(ONE + TWO, [1, 2], 2) == [
        fp.Status(1, 0, b'\x00\x08'), fp.Status(2, 0, b'\x00\x04')]
    assert fp.parse_statuses(TWO, [1, 2], 2) == [fp.Status(2, 0, b'\x00\x04')]
    assert fp.parse_statuses(b'', [1, 2], 2) == []
    # PING reply of ID 1: 01 + 02 + 00 = 0x03 -> FC.
    assert fp.parse_statuses(bytes.fromhex('ff ff 01 02 00 fc'), [1], 0) == [
        fp.Status(1, 0, b'')]


@pytest.mark.parametrize('reply, message', [
    # One data byte short, checksum valid for what is there: 01 + 03 + 00 + 00 = 4 -> FB.
    (bytes.fromhex('ff ff 01 03 00 00 fb'), 'ID 1: status packet length 3, expected 4'),
    (ONE[:-1] + b'\x00', 'ID 1: status packet checksum 0x00, expected 0xf2'),
    (ONE[:6], 'ID 1: status packet cut off after 6 of 8 bytes'),
    (b'\x00' + ONE, 'no FF FF header'),
    (TWO + ONE, 'status packet from ID 1, which was not asked (or answered twice, or out'),
    (ONE + ONE, 'status packet from ID 1, which was not asked'),
])
def test_garbled_status_packets(reply, message):
    with pytest.raises(GarbledReply, match=message.replace('(', r'\(')):
        fp.parse_statuses(reply, [1, 2], 2)


def test_status_error_bits_named():
    assert fp.describe_status_error(0x20) == 'overload (bit 5)'
    assert fp.describe_status_error(0x05) == ('voltage out of range (bit 0), overheating '
                                              '(bit 2)')
    assert fp.describe_status_error(0x08) == 'overcurrent (bit 3)'
    assert fp.describe_status_error(0x10) == 'undocumented error (bit 4)'
    statuses = [fp.Status(1, 0, b''), fp.Status(2, 0x02, b'')]
    assert fp.status_errors(statuses, {1: 'shoulder', 2: 'elbow'}) == [
        'ID 2 (elbow): status error 0x02: angle sensor error (bit 1)']
