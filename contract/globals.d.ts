/** What the contract uses beyond ES2022: every runtime that compiles it has it (browsers, workers, Node). */
declare function btoa(data: string): string;
