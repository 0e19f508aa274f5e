/*
 * pmucal test fixture: a 2-node SRAT (compiled with `iasl srat-2node.asl`; the
 * Makefile does not run iasl, the .aml is committed next to this source).
 * Node 0: APIC IDs 0,1 and 0-640K + 1M-2G; node 1: APIC IDs 2,3 and 2G-4G.
 * Format: [ByteLength]  FieldName : HexFieldValue
 */
[0004]                          Signature : "SRAT"    [System Resource Affinity Table]
[0004]                       Table Length : 00000000
[0001]                           Revision : 03
[0001]                           Checksum : 00
[0006]                             Oem ID : "PMUCAL"
[0008]                       Oem Table ID : "SRAT2NOD"
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
[0001]            Proximity Domain Low(8) : 01
[0001]                            Apic ID : 03
[0004]              Flags (decoded below) : 00000001
                                   Enabled : 1
[0001]                    Local Sapic EID : 00
[0003]          Proximity Domain High(24) : 000000
[0004]                       Clock Domain : 00000000

[0001]                      Subtable Type : 01 [Memory Affinity]
[0001]                             Length : 28
[0004]                   Proximity Domain : 00000000
[0002]                          Reserved1 : 0000
[0008]                       Base Address : 0000000000000000
[0008]                     Address Length : 00000000000A0000
[0004]                          Reserved2 : 00000000
[0004]              Flags (decoded below) : 00000001
                                   Enabled : 1
                             Hot Pluggable : 0
                              Non-Volatile : 0
[0008]                          Reserved3 : 0000000000000000

[0001]                      Subtable Type : 01 [Memory Affinity]
[0001]                             Length : 28
[0004]                   Proximity Domain : 00000000
[0002]                          Reserved1 : 0000
[0008]                       Base Address : 0000000000100000
[0008]                     Address Length : 000000007FF00000
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
[0008]                     Address Length : 0000000080000000
[0004]                          Reserved2 : 00000000
[0004]              Flags (decoded below) : 00000001
                                   Enabled : 1
                             Hot Pluggable : 0
                              Non-Volatile : 0
[0008]                          Reserved3 : 0000000000000000
