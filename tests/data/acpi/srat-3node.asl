/*
 * pmucal test fixture: a 3-node SRAT (compiled with `iasl srat-3node.asl`).
 * Node 0: APIC 0,1, memory 0-2G; node 1: APIC 2, x2APIC 0x100, memory 2G-6G;
 * node 2: memory only, 6G-14G, hot-pluggable and non-volatile. Also: one disabled
 * APIC entry whose proximity domain 0x010002 is split over the Low(8)/High(24)
 * bytes, one disabled memory range, and a Generic Initiator entry (type 5) that the
 * parser must skip.
 * Format: [ByteLength]  FieldName : HexFieldValue
 */
[0004]                          Signature : "SRAT"    [System Resource Affinity Table]
[0004]                       Table Length : 00000000
[0001]                           Revision : 03
[0001]                           Checksum : 00
[0006]                             Oem ID : "PMUCAL"
[0008]                       Oem Table ID : "SRAT3NOD"
[0004]                       Oem Revision : 00000001
[0004]                    Asl Compiler ID : "INTL"
[0004]              Asl Compiler Revision : 20200925

[0004]                     Table Revision : 00000001
[0008]                           Reserved : 0000000000000000

[0001]                      Subtable Type : 00 [Processor Local APIC/SAPIC Affinity]
[0001]                             Length : 10
[0001]            Proximity Domain Low(8) : 00
[0001]                            Apic ID : 00
[0004]              Flags (decoded below) : 00000001
                                   Enabled : 1
[0001]                    Local Sapic EID : 00
[0003]          Proximity Domain High(24) : 000000
[0004]                       Clock Domain : 00000000

[0001]                      Subtable Type : 00 [Processor Local APIC/SAPIC Affinity]
[0001]                             Length : 10
[0001]            Proximity Domain Low(8) : 00
[0001]                            Apic ID : 01
[0004]              Flags (decoded below) : 00000001
                                   Enabled : 1
[0001]                    Local Sapic EID : 00
[0003]          Proximity Domain High(24) : 000000
[0004]                       Clock Domain : 00000000

[0001]                      Subtable Type : 00 [Processor Local APIC/SAPIC Affinity]
[0001]                             Length : 10
[0001]            Proximity Domain Low(8) : 01
[0001]                            Apic ID : 02
[0004]              Flags (decoded below) : 00000001
                                   Enabled : 1
[0001]                    Local Sapic EID : 00
[0003]          Proximity Domain High(24) : 000000
[0004]                       Clock Domain : 00000000

[0001]                      Subtable Type : 00 [Processor Local APIC/SAPIC Affinity]
[0001]                             Length : 10
[0001]            Proximity Domain Low(8) : 02
[0001]                            Apic ID : FE
[0004]              Flags (decoded below) : 00000000
                                   Enabled : 0
[0001]                    Local Sapic EID : 00
[0003]          Proximity Domain High(24) : 000100
[0004]                       Clock Domain : 00000000

[0001]                      Subtable Type : 02 [Processor Local x2APIC Affinity]
[0001]                             Length : 18
[0002]                          Reserved1 : 0000
[0004]                   Proximity Domain : 00000001
[0004]                            Apic ID : 00000100
[0004]              Flags (decoded below) : 00000001
                                   Enabled : 1
[0004]                       Clock Domain : 00000000
[0004]                          Reserved2 : 00000000

[0001]                      Subtable Type : 05 [Generic Initiator Affinity]
[0001]                             Length : 20
[0001]                          Reserved1 : 00
[0001]                 Device Handle Type : 00
[0004]                   Proximity Domain : 00000001
[0016]                      Device Handle : 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00
[0004]              Flags (decoded below) : 00000001
                                   Enabled : 1
[0004]                          Reserved2 : 00000000

[0001]                      Subtable Type : 01 [Memory Affinity]
[0001]                             Length : 28
[0004]                   Proximity Domain : 00000000
[0002]                          Reserved1 : 0000
[0008]                       Base Address : 0000000000000000
[0008]                     Address Length : 0000000080000000
[0004]                          Reserved2 : 00000000
[0004]              Flags (decoded below) : 00000001
                                   Enabled : 1
                             Hot Pluggable : 0
                              Non-Volatile : 0
[0008]                          Reserved3 : 0000000000000000

[0001]                      Subtable Type : 01 [Memory Affinity]
[0001]                             Length : 28
[0004]                   Proximity Domain : 00000001
[0002]                          Reserved1 : 0000
[0008]                       Base Address : 0000000080000000
[0008]                     Address Length : 0000000100000000
[0004]                          Reserved2 : 00000000
[0004]              Flags (decoded below) : 00000001
                                   Enabled : 1
                             Hot Pluggable : 0
                              Non-Volatile : 0
[0008]                          Reserved3 : 0000000000000000

[0001]                      Subtable Type : 01 [Memory Affinity]
[0001]                             Length : 28
[0004]                   Proximity Domain : 00000002
[0002]                          Reserved1 : 0000
[0008]                       Base Address : 0000000180000000
[0008]                     Address Length : 0000000200000000
[0004]                          Reserved2 : 00000000
[0004]              Flags (decoded below) : 00000007
                                   Enabled : 1
                             Hot Pluggable : 1
                              Non-Volatile : 1
[0008]                          Reserved3 : 0000000000000000

[0001]                      Subtable Type : 01 [Memory Affinity]
[0001]                             Length : 28
[0004]                   Proximity Domain : 00000003
[0002]                          Reserved1 : 0000
[0008]                       Base Address : 0000000380000000
[0008]                     Address Length : 0000000040000000
[0004]                          Reserved2 : 00000000
[0004]              Flags (decoded below) : 00000000
                                   Enabled : 0
                             Hot Pluggable : 0
                              Non-Volatile : 0
[0008]                          Reserved3 : 0000000000000000
