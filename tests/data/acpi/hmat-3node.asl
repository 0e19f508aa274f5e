/*
 * pmucal test fixture: an ACPI 6.3 HMAT (revision 2) for srat-3node (compiled with
 * `iasl hmat-3node.asl`). Initiators: domains 0 and 1; targets: 0, 1, 2 (2 is the
 * CPU-less node). Access latency (base unit 100 ps): local 80 ns, remote 135 ns,
 * node 2 from node 1 is 0xFFFF (unreachable) and from node 0 is 0 (not provided).
 * Access bandwidth (base unit 10 MB/s): local 20000 MB/s, remote 9000 MB/s, node 2
 * 4000 MB/s. Read latency for target 2 only, level-1 memory-side cache hierarchy.
 * A 16 GiB direct-mapped write-back memory-side cache (64-byte lines) fronts node 2.
 * Format: [ByteLength]  FieldName : HexFieldValue
 */
[0004]                          Signature : "HMAT"    [Heterogeneous Memory Attributes Table]
[0004]                       Table Length : 00000000
[0001]                           Revision : 02
[0001]                           Checksum : 00
[0006]                             Oem ID : "PMUCAL"
[0008]                       Oem Table ID : "HMAT3NOD"
[0004]                       Oem Revision : 00000001
[0004]                    Asl Compiler ID : "INTL"
[0004]              Asl Compiler Revision : 20200925

[0004]                           Reserved : 00000000

[0002]                     Structure Type : 0000 [Memory Proximity Domain Attributes]
[0002]                           Reserved : 0000
[0004]                             Length : 00000028
[0002]              Flags (decoded below) : 0001
         Processor Proximity Domain Valid : 1
[0002]                          Reserved1 : 0000
[0004] Attached Initiator Proximity Domain : 00000000
[0004]            Memory Proximity Domain : 00000000
[0004]                          Reserved2 : 00000000
[0008]                          Reserved3 : 0000000000000000
[0008]                          Reserved4 : 0000000000000000

[0002]                     Structure Type : 0000 [Memory Proximity Domain Attributes]
[0002]                           Reserved : 0000
[0004]                             Length : 00000028
[0002]              Flags (decoded below) : 0001
         Processor Proximity Domain Valid : 1
[0002]                          Reserved1 : 0000
[0004] Attached Initiator Proximity Domain : 00000001
[0004]            Memory Proximity Domain : 00000001
[0004]                          Reserved2 : 00000000
[0008]                          Reserved3 : 0000000000000000
[0008]                          Reserved4 : 0000000000000000

[0002]                     Structure Type : 0000 [Memory Proximity Domain Attributes]
[0002]                           Reserved : 0000
[0004]                             Length : 00000028
[0002]              Flags (decoded below) : 0000
         Processor Proximity Domain Valid : 0
[0002]                          Reserved1 : 0000
[0004] Attached Initiator Proximity Domain : 00000000
[0004]            Memory Proximity Domain : 00000002
[0004]                          Reserved2 : 00000000
[0008]                          Reserved3 : 0000000000000000
[0008]                          Reserved4 : 0000000000000000

[0002]                     Structure Type : 0001 [System Locality Latency and Bandwidth Information]
[0002]                           Reserved : 0000
[0004]                             Length : 00000040
[0001]              Flags (decoded below) : 00
                         Memory Hierarchy : 0
[0001]                          Data Type : 00
[0002]                          Reserved1 : 0000
[0004]      Initiator Proximity Domains # : 00000002
[0004]         Target Proximity Domains # : 00000003
[0004]                          Reserved2 : 00000000
[0008]                    Entry Base Unit : 0000000000000064
[0004]    Initiator Proximity Domain List : 00000000
[0004]    Initiator Proximity Domain List : 00000001
[0004]       Target Proximity Domain List : 00000000
[0004]       Target Proximity Domain List : 00000001
[0004]       Target Proximity Domain List : 00000002
[0002]                              Entry : 0320
[0002]                              Entry : 0546
[0002]                              Entry : 0000
[0002]                              Entry : 0546
[0002]                              Entry : 0320
[0002]                              Entry : FFFF

[0002]                     Structure Type : 0001 [System Locality Latency and Bandwidth Information]
[0002]                           Reserved : 0000
[0004]                             Length : 00000040
[0001]              Flags (decoded below) : 00
                         Memory Hierarchy : 0
[0001]                          Data Type : 03
[0002]                          Reserved1 : 0000
[0004]      Initiator Proximity Domains # : 00000002
[0004]         Target Proximity Domains # : 00000003
[0004]                          Reserved2 : 00000000
[0008]                    Entry Base Unit : 000000000000000A
[0004]    Initiator Proximity Domain List : 00000000
[0004]    Initiator Proximity Domain List : 00000001
[0004]       Target Proximity Domain List : 00000000
[0004]       Target Proximity Domain List : 00000001
[0004]       Target Proximity Domain List : 00000002
[0002]                              Entry : 07D0
[0002]                              Entry : 0384
[0002]                              Entry : 0190
[0002]                              Entry : 0384
[0002]                              Entry : 07D0
[0002]                              Entry : 0190

[0002]                     Structure Type : 0001 [System Locality Latency and Bandwidth Information]
[0002]                           Reserved : 0000
[0004]                             Length : 00000030
[0001]              Flags (decoded below) : 01
                         Memory Hierarchy : 1
[0001]                          Data Type : 01
[0002]                          Reserved1 : 0000
[0004]      Initiator Proximity Domains # : 00000002
[0004]         Target Proximity Domains # : 00000001
[0004]                          Reserved2 : 00000000
[0008]                    Entry Base Unit : 00000000000003E8
[0004]    Initiator Proximity Domain List : 00000000
[0004]    Initiator Proximity Domain List : 00000001
[0004]       Target Proximity Domain List : 00000002
[0002]                              Entry : 005F
[0002]                              Entry : 005A

[0002]                     Structure Type : 0002 [Memory Side Cache Information]
[0002]                           Reserved : 0000
[0004]                             Length : 00000022
[0004]            Memory Proximity Domain : 00000002
[0004]                          Reserved1 : 00000000
[0008]             Memory Side Cache Size : 0000000400000000
[0004]   Cache Attributes (decoded below) : 00401111
                       Total Cache Levels : 1
                              Cache Level : 1
                      Cache Associativity : 1
                             Write Policy : 1
                          Cache Line Size : 0040
[0002]                          Reserved2 : 0000
[0002]                    SMBIOS Handle # : 0001
[0002]                      SMBIOS Handle : 0011
