import { DataTypes, Model, type CreationOptional, type ForeignKey, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';
import type { Participant } from './Participant';
import type { Roll } from './Roll';
import type { User } from './User';

/** One recipient of a whispered roll: a participant of the roll's room (and that participant's user). */
export class RollWhisper extends Model<InferAttributes<RollWhisper>, InferCreationAttributes<RollWhisper>> {
  declare id: CreationOptional<number>;
  declare rollId: ForeignKey<Roll['id']>;
  declare participantId: ForeignKey<Participant['id']>;
  declare userId: ForeignKey<User['id']>;

  static initModel(sequelize: Sequelize) {
    this.init(
      { id: { type: DataTypes.INTEGER, primaryKey: true, autoIncrement: true } },
      { sequelize, tableName: 'roll_whispers', underscored: true, timestamps: false },
    );
  }
}
